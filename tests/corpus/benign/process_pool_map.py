# expect: LOW benign
from concurrent.futures import ProcessPoolExecutor
import math


def heavy(n):
    return sum(math.sqrt(i) for i in range(n))


if __name__ == "__main__":
    with ProcessPoolExecutor() as ex:
        for n, r in zip(range(10000, 10005), ex.map(heavy, range(10000, 10005))):
            print(n, round(r, 2))
