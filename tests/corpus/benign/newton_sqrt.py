# expect: LOW benign
import math


def newton(f, df, x0, tol=1e-12, max_iter=100):
    x = x0
    for _ in range(max_iter):
        step = f(x) / df(x)
        x -= step
        if abs(step) < tol:
            return x
    raise RuntimeError("did not converge")


for n in (2, 3, 10, 12345):
    root = newton(lambda x: x * x - n, lambda x: 2 * x, n / 2)
    print(n, root, math.isclose(root, math.sqrt(n)))
