# expect: LOW benign
import time
from contextlib import contextmanager


@contextmanager
def timer(label):
    start = time.perf_counter()
    try:
        yield
    finally:
        print(f"{label}: {time.perf_counter() - start:.4f}s")


with timer("sum"):
    total = sum(range(1_000_000))
with timer("sort"):
    data = sorted(range(100000), key=lambda x: -x)
print(total, data[:3])
