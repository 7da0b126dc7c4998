# expect: MEDIUM deserialization
import shelve
with shelve.open("state") as db:
    db["runs"] = db.get("runs", 0) + 1
    print(db["runs"])
