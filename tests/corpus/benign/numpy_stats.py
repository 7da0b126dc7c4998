# expect: LOW benign
import numpy as np

rng = np.random.default_rng(42)
data = rng.normal(loc=10, scale=2, size=(1000, 3))
print("mean", data.mean(axis=0))
print("std", data.std(axis=0))
corr = np.corrcoef(data, rowvar=False)
print(np.round(corr, 3))
hist, edges = np.histogram(data[:, 0], bins=10)
for h, e in zip(hist, edges):
    print(f"{e:6.2f} {'#' * (h // 5)}")
