# expect: LOW benign
import random

random.seed(1)
trials = 100_000
inside = sum(1 for _ in range(trials) if random.random() ** 2 + random.random() ** 2 <= 1)
print("pi ~", 4 * inside / trials)
dice = [random.randint(1, 6) + random.randint(1, 6) for _ in range(10000)]
for total in range(2, 13):
    print(total, dice.count(total))
