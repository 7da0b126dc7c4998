# expect: LOW benign
import json
from pathlib import Path

data = json.loads(Path("users.json").read_text())
active = [u for u in data["users"] if u.get("active")]
by_country = {}
for user in active:
    by_country.setdefault(user.get("country", "??"), []).append(user["name"])
Path("out").mkdir(exist_ok=True)
Path("out/active_by_country.json").write_text(json.dumps(by_country, indent=2, sort_keys=True))
