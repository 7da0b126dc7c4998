# expect: LOW benign
import sqlite3

src = sqlite3.connect("app.db")
dst = sqlite3.connect("app-backup.db")
with dst:
    src.backup(dst)
print("tables:", [r[0] for r in dst.execute("select name from sqlite_master where type='table'")])
dst.close()
src.close()
