# expect: LOW benign
import csv
from collections import defaultdict

totals = defaultdict(float)
counts = defaultdict(int)
with open("sales.csv", newline="") as f:
    for row in csv.DictReader(f):
        totals[row["region"]] += float(row["amount"])
        counts[row["region"]] += 1

for region in sorted(totals):
    avg = totals[region] / counts[region]
    print(f"{region:<12}{totals[region]:>12.2f}{avg:>10.2f}")
