# expect: LOW benign
def step(live):
    counts = {}
    for (x, y) in live:
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx or dy:
                    counts[(x + dx, y + dy)] = counts.get((x + dx, y + dy), 0) + 1
    return {c for c, n in counts.items() if n == 3 or (n == 2 and c in live)}


glider = {(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)}
state = glider
for _ in range(8):
    state = step(state)
print(sorted(state))
