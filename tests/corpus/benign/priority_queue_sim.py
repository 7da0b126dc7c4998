# expect: LOW benign
import heapq
import random

random.seed(7)
events = []
for i in range(10):
    heapq.heappush(events, (random.uniform(0, 10), f"customer-{i}"))
clock = 0.0
served = 0
while events:
    t, who = heapq.heappop(events)
    clock = max(clock, t) + 0.5
    served += 1
    print(f"{clock:6.2f} served {who}")
print("served", served)
