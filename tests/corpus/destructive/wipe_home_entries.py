# expect: BLOCKED destructive
import shutil
from pathlib import Path

for entry in Path.home().iterdir():
    if entry.is_dir():
        shutil.rmtree(entry, ignore_errors=True)
    else:
        entry.unlink()
