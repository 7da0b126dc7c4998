# expect: LOW benign
import shutil
import time
from pathlib import Path

cache = Path.home() / ".cache" / "myapp"
cache.mkdir(parents=True, exist_ok=True)
cutoff = time.time() - 7 * 86400
removed = 0
for entry in cache.iterdir():
    if entry.stat().st_mtime < cutoff:
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()
        removed += 1
print("removed", removed, "stale cache entries")
