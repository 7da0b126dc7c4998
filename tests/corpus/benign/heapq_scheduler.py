# expect: LOW benign
import heapq
import time

tasks = []
heapq.heappush(tasks, (3, "write report"))
heapq.heappush(tasks, (1, "fix bug"))
heapq.heappush(tasks, (2, "review PR"))
while tasks:
    prio, name = heapq.heappop(tasks)
    start = time.perf_counter()
    print(f"[{prio}] {name}")
    elapsed = time.perf_counter() - start
print("done")
