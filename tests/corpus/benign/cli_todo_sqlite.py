# expect: LOW benign
import argparse
import sqlite3

DB = "todo.db"


def connect():
    db = sqlite3.connect(DB)
    db.execute("create table if not exists todo (id integer primary key, text text, done int default 0)")
    return db


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    add = sub.add_parser("add")
    add.add_argument("text")
    sub.add_parser("list")
    done = sub.add_parser("done")
    done.add_argument("id", type=int)
    args = p.parse_args()
    db = connect()
    if args.cmd == "add":
        db.execute("insert into todo (text) values (?)", (args.text,))
    elif args.cmd == "done":
        db.execute("update todo set done = 1 where id = ?", (args.id,))
    else:
        for row in db.execute("select id, text, done from todo"):
            print(("[x]" if row[2] else "[ ]"), row[0], row[1])
    db.commit()


if __name__ == "__main__":
    main()
