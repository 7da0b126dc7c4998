# expect: LOW benign
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed

lock = threading.Lock()
processed = 0


def work(n):
    global processed
    result = sum(i * i for i in range(n))
    with lock:
        processed += 1
    return n, result


with ThreadPoolExecutor(max_workers=4) as pool:
    futures = [pool.submit(work, n) for n in range(1000, 1020)]
    for fut in as_completed(futures):
        n, r = fut.result()
        print(n, r)
print("processed", processed)
