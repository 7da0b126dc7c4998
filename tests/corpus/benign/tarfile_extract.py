# expect: LOW benign
import tarfile
from pathlib import Path

out = Path("extracted")
out.mkdir(exist_ok=True)
with tarfile.open("dataset.tar.gz") as tar:
    members = [m for m in tar.getmembers() if m.isfile() and not m.name.startswith("/")]
    tar.extractall(out, members=members, filter="data")
print(sorted(p.name for p in out.rglob("*"))[:10])
