# expect: LOW benign
import functools
import time


def timed(label):
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                print(f"{label}: {time.perf_counter() - start:.4f}s")

        return inner

    return wrap


@timed("squares")
def squares(n):
    return [i * i for i in range(n)]


print(len(squares(1000)))
