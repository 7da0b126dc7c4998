# expect: LOW benign
import numpy as np

A = np.array([[3, 1, -1], [2, 4, 1], [-1, 2, 5]], dtype=float)
b = np.array([4, 1, 1], dtype=float)
x = np.linalg.solve(A, b)
print("solution", x)
print("check", np.allclose(A @ x, b))
w, v = np.linalg.eig(A)
print("eigenvalues", np.round(w, 4))
