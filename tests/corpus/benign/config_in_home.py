# expect: LOW benign
import json
from pathlib import Path

CONFIG_DIR = Path.home() / ".config" / "todo-cli"
CONFIG_FILE = CONFIG_DIR / "settings.json"


def load():
    if CONFIG_FILE.exists():
        return json.loads(CONFIG_FILE.read_text())
    return {"theme": "dark", "items": []}


def save(cfg):
    CONFIG_DIR.mkdir(parents=True, exist_ok=True)
    CONFIG_FILE.write_text(json.dumps(cfg, indent=2))


cfg = load()
cfg["items"].append("buy milk")
save(cfg)
print(cfg)
