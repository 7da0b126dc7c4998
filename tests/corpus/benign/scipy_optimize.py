# expect: LOW benign
import numpy as np
from scipy import optimize


def rosen(x):
    return sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


res = optimize.minimize(rosen, np.array([1.3, 0.7, 0.8, 1.9, 1.2]), method="Nelder-Mead")
print(res.x, res.fun)
