# expect: LOW benign
import statistics


class Report:
    def __init__(self, *values, title="report"):
        self.values = list(values)
        self.title = title

    def render(self):
        mean = statistics.mean(self.values) if self.values else 0
        return f"{self.title}: n={len(self.values)} mean={mean:.2f}"


print(Report(3, 5, 8, title="latency").render())
