# expect: LOW benign
import sys
import time

total = 40
for i in range(total + 1):
    filled = int(30 * i / total)
    sys.stdout.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {i * 100 // total:3}%")
    sys.stdout.flush()
    time.sleep(0.001)
print()
