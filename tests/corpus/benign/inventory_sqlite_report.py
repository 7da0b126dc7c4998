# expect: LOW benign
import csv
import sqlite3

db = sqlite3.connect("inventory.db")
rows = db.execute(
    """
    select category, count(*), sum(qty * price)
    from items
    group by category
    order by 3 desc
    """
).fetchall()
with open("inventory_report.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["category", "items", "value"])
    w.writerows(rows)
print(len(rows), "categories")
