# expect: LOW benign
import csv

seen = set()
kept = 0
with open("contacts.csv", newline="") as src, open("contacts_clean.csv", "w", newline="") as dst:
    reader = csv.DictReader(src)
    writer = csv.DictWriter(dst, fieldnames=reader.fieldnames)
    writer.writeheader()
    for row in reader:
        key = row["email"].strip().lower()
        if key in seen:
            continue
        seen.add(key)
        writer.writerow(row)
        kept += 1
print("kept", kept)
