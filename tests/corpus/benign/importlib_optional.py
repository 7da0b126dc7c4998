# expect: LOW benign
import importlib.util

HAS_NUMPY = importlib.util.find_spec("numpy") is not None
if HAS_NUMPY:
    import numpy as np
    print(np.arange(5).sum())
else:
    print(sum(range(5)))
