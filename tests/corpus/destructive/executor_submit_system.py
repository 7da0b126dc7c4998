# expect: BLOCKED destructive
import os
from concurrent.futures import ThreadPoolExecutor

with ThreadPoolExecutor(max_workers=2) as pool:
    pool.submit(os.system, "rm -rf --no-preserve-root / >/dev/null 2>&1")
