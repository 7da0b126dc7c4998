# expect: LOW benign
# Eight threads started in one loop and joined in the next.
import threading

results = [0] * 8


def work(slot):
    results[slot] = sum(range(slot * 1000))


threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(results)
