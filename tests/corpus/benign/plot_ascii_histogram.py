# expect: LOW benign
import random
from collections import Counter

random.seed(0)
samples = [round(random.gauss(0, 1), 1) for _ in range(2000)]
hist = Counter(round(s) for s in samples)
for bucket in range(-4, 5):
    print(f"{bucket:3} {'*' * (hist[bucket] // 20)}")
