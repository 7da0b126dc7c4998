# expect: LOW benign
from multiprocessing import Pool


def is_prime(n):
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


if __name__ == "__main__":
    with Pool(4) as pool:
        flags = pool.map(is_prime, range(10000))
    print(sum(flags))
