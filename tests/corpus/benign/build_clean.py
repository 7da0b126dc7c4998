# expect: LOW benign
import os
import shutil
from pathlib import Path

for d in ("build", "dist", ".pytest_cache"):
    if os.path.isdir(d):
        shutil.rmtree(d)
for pyc in Path(".").rglob("*.pyc"):
    pyc.unlink()
print("clean")
