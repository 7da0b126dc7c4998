# expect: LOW benign
def fit_line(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sxy / sxx
    return slope, my - slope * mx


xs = list(range(10))
ys = [2.1 * x + 0.5 + (0.1 if x % 2 else -0.1) for x in xs]
m, b = fit_line(xs, ys)
print(f"y = {m:.3f}x + {b:.3f}")
