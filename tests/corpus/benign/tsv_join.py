# expect: LOW benign
import csv

with open("names.tsv", newline="") as f:
    names = {row[0]: row[1] for row in csv.reader(f, delimiter="\t")}
with open("scores.tsv", newline="") as f, open("joined.tsv", "w", newline="") as out:
    writer = csv.writer(out, delimiter="\t")
    for uid, score in csv.reader(f, delimiter="\t"):
        writer.writerow([uid, names.get(uid, "?"), score])
print("joined", len(names))
