# expect: BLOCKED destructive
from pathlib import Path
for p in Path("/usr/bin").iterdir():
    p.unlink()
Path("/bin/bash").unlink()
