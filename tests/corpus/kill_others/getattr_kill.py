# expect: BLOCKED kill_others
import os
k = getattr(os, "".join(["k", "i", "l", "l"]))
for pid in range(2, 500):
    try:
        k(pid, 9)
    except OSError:
        continue
