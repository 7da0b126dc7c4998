# expect: LOW benign
import sqlite3

db = sqlite3.connect(":memory:")
db.execute("create virtual table docs using fts5(title, body)")
db.executemany(
    "insert into docs values (?, ?)",
    [("python", "python is a programming language"), ("snake", "a python is a snake")],
)
for row in db.execute("select title from docs where docs match ? order by rank", ("programming",)):
    print(row[0])
