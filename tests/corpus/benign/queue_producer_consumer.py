# expect: LOW benign
import queue
import threading

q = queue.Queue(maxsize=10)
results = []


def producer():
    for i in range(20):
        q.put(i)
    q.put(None)


def consumer():
    while True:
        item = q.get()
        if item is None:
            break
        results.append(item ** 2)


threads = [threading.Thread(target=producer), threading.Thread(target=consumer)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(sum(results))
