# expect: LOW benign
rows = [("Name", "Qty", "Price"), ("apple", 3, 0.5), ("banana", 12, 0.25), ("cherry", 100, 0.1)]
widths = [max(len(str(r[i])) for r in rows) for i in range(3)]
for i, row in enumerate(rows):
    print(" | ".join(str(c).ljust(w) for c, w in zip(row, widths)))
    if i == 0:
        print("-+-".join("-" * w for w in widths))
