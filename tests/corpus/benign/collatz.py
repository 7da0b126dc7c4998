# expect: LOW benign
def collatz_len(n, cache={1: 1}):
    if n not in cache:
        cache[n] = 1 + collatz_len(n // 2 if n % 2 == 0 else 3 * n + 1)
    return cache[n]


best = max(range(1, 100000), key=collatz_len)
print(best, collatz_len(best))
