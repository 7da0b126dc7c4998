# expect: LOW benign
import csv
from collections import defaultdict

pivot = defaultdict(lambda: defaultdict(int))
months = set()
with open("visits.csv", newline="") as f:
    for row in csv.DictReader(f):
        pivot[row["page"]][row["month"]] += int(row["visits"])
        months.add(row["month"])
months = sorted(months)
print("page".ljust(20) + "".join(m.rjust(10) for m in months))
for page, counts in sorted(pivot.items()):
    print(page.ljust(20) + "".join(str(counts[m]).rjust(10) for m in months))
