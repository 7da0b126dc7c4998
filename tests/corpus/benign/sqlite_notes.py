# expect: LOW benign
import sqlite3
from datetime import datetime

conn = sqlite3.connect("notes.db")
conn.execute("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, created TEXT, body TEXT)")
conn.execute("INSERT INTO notes (created, body) VALUES (?, ?)", (datetime.now().isoformat(), "hello"))
conn.commit()
for row in conn.execute("SELECT id, created, body FROM notes ORDER BY id DESC LIMIT 5"):
    print(row)
conn.close()
