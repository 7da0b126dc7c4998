# expect: LOW benign
import threading
from concurrent.futures import ThreadPoolExecutor


def square(n):
    return n * n


def report(results, lock=threading.Lock()):
    with lock:
        print(sorted(results))


with ThreadPoolExecutor(max_workers=4) as pool:
    values = list(pool.map(square, range(10)))
    future = pool.submit(sum, values)
worker = threading.Thread(target=report, args=(values,))
worker.start()
worker.join()
print(future.result(), list(map(str.upper, ["a", "b"])))
