# expect: LOW benign
import os
import time

seen = set(os.listdir("inbox")) if os.path.isdir("inbox") else set()
for _ in range(3):
    time.sleep(0.2)
    current = set(os.listdir("inbox")) if os.path.isdir("inbox") else set()
    for new in sorted(current - seen):
        print("new file", new)
    seen = current
