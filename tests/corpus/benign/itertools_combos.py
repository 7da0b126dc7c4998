# expect: LOW benign
import itertools

items = ["apple", "banana", "cherry", "date"]
for combo in itertools.combinations(items, 2):
    print(" + ".join(combo))
perms = list(itertools.permutations(range(4)))
print(len(perms))
grouped = itertools.groupby(sorted(items, key=len), key=len)
for length, words in grouped:
    print(length, list(words))
