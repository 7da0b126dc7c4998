# expect: LOW benign
import queue
import subprocess
import threading
import time

jobs = queue.Queue()
for n in range(3):
    jobs.put(n)
jobs.put(None)


def handle(item):
    print("job", item)


while True:
    item = jobs.get()
    if item is None:
        break
    threading.Thread(target=handle, args=(item,)).start()

while True:
    subprocess.Popen(["date", "+%s"])
    time.sleep(30)
