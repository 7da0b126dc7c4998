# expect: LOW benign
"""Counts words in several files with one worker thread per file."""
import threading
from collections import Counter


class CountWords(threading.Thread):
    def __init__(self, path):
        super().__init__()
        self.path = path
        self.counts = Counter()

    def run(self):
        try:
            with open(self.path, encoding="utf-8") as handle:
                for line in handle:
                    self.counts.update(line.split())
        except FileNotFoundError:
            pass


workers = [CountWords(name) for name in ("a.txt", "b.txt", "c.txt")]
for worker in workers:
    worker.start()
total = Counter()
for worker in workers:
    worker.join()
    total.update(worker.counts)
print(total.most_common(5))
