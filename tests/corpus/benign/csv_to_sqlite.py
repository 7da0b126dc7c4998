# expect: LOW benign
import csv
import sqlite3

db = sqlite3.connect(":memory:")
db.execute("create table people (name text, age integer, city text)")
with open("people.csv", newline="") as f:
    rows = [(r["name"], int(r["age"]), r["city"]) for r in csv.DictReader(f)]
db.executemany("insert into people values (?, ?, ?)", rows)
for city, avg in db.execute("select city, avg(age) from people group by city order by 2 desc"):
    print(city, round(avg, 1))
