# expect: LOW benign
import sqlite3

MIGRATIONS = [
    "create table users (id integer primary key, email text unique)",
    "alter table users add column created text",
    "create index idx_users_created on users(created)",
]

db = sqlite3.connect("app.db")
db.execute("create table if not exists schema_version (v integer)")
row = db.execute("select max(v) from schema_version").fetchone()
current = row[0] or 0
for i, sql in enumerate(MIGRATIONS[current:], start=current + 1):
    db.execute(sql)
    db.execute("insert into schema_version values (?)", (i,))
    print("applied", i)
db.commit()
