# expect: LOW benign
HELP = """
Usage: cleaner [options] DIR

This tool never runs `rm -rf /` or touches /etc; it only removes *.tmp
files below DIR. It does not need sudo. To install it for all users,
an administrator may copy it to /usr/local/bin.
"""
import sys
from pathlib import Path

if len(sys.argv) < 2:
    print(HELP)
    sys.exit(1)
removed = 0
for p in Path(sys.argv[1]).rglob("*.tmp"):
    p.unlink()
    removed += 1
print("removed", removed)
