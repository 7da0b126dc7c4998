# expect: LOW benign
from collections import defaultdict
from decimal import Decimal

ledger = [
    ("2024-01-02", "rent", Decimal("-1200.00")),
    ("2024-01-03", "salary", Decimal("3500.00")),
    ("2024-01-10", "groceries", Decimal("-84.12")),
    ("2024-01-15", "groceries", Decimal("-56.40")),
]
by_cat = defaultdict(Decimal)
for _, cat, amount in ledger:
    by_cat[cat] += amount
for cat, total in sorted(by_cat.items(), key=lambda kv: kv[1]):
    print(f"{cat:12} {total:>10}")
print("balance", sum(by_cat.values()))
