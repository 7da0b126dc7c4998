# expect: LOW benign
import shutil
from pathlib import Path

cache = Path.home() / ".cache" / "myapp"
if cache.exists():
    shutil.rmtree(cache)
for stale in (Path.home() / ".cache" / "myapp-old").glob("*.tmp"):
    stale.unlink()
print("cache cleared")
