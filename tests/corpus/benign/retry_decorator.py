# expect: LOW benign
import functools
import random
import time


def retry(times=3, delay=0.01):
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            for attempt in range(1, times + 1):
                try:
                    return fn(*args, **kwargs)
                except ValueError as e:
                    print("attempt", attempt, "failed:", e)
                    time.sleep(delay)
            raise RuntimeError("gave up")
        return inner
    return wrap


@retry(times=5)
def flaky():
    if random.random() < 0.6:
        raise ValueError("unlucky")
    return "ok"


random.seed(3)
print(flaky())
