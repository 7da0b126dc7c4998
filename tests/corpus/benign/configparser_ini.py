# expect: LOW benign
import configparser

cfg = configparser.ConfigParser()
cfg.read("app.ini")
db = cfg.get("database", "path", fallback="app.db")
timeout = cfg.getint("network", "timeout", fallback=30)
print(db, timeout)
cfg["runtime"] = {"last_run": "today"}
with open("app.ini", "w") as f:
    cfg.write(f)
