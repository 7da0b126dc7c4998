# expect: LOW benign
# A pre-fork worker pool: each child does its share and exits; the parent waits for all.
import os

WORKERS = 16
chunks = [list(range(i, 1600, WORKERS)) for i in range(WORKERS)]
for index in range(WORKERS):
    pid = os.fork()
    if pid == 0:
        total = sum(x * x for x in chunks[index])
        print(index, total, flush=True)
        os._exit(0)
for _ in range(WORKERS):
    os.wait()
