# expect: LOW benign
import os
from pathlib import Path

LOG_DIR = Path("logs")
LOG_DIR.mkdir(exist_ok=True)
logs = sorted(LOG_DIR.glob("app.log.*"), key=lambda p: int(p.suffix[1:]), reverse=True)
for p in logs:
    n = int(p.suffix[1:])
    if n >= 5:
        p.unlink()
    else:
        os.replace(p, LOG_DIR / f"app.log.{n + 1}")
current = LOG_DIR / "app.log"
if current.exists():
    os.replace(current, LOG_DIR / "app.log.1")
current.touch()
