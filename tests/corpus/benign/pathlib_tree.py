# expect: LOW benign
from pathlib import Path


def tree(root: Path, prefix=""):
    entries = sorted(root.iterdir(), key=lambda p: (p.is_file(), p.name))
    for i, entry in enumerate(entries):
        last = i == len(entries) - 1
        print(prefix + ("└── " if last else "├── ") + entry.name)
        if entry.is_dir():
            tree(entry, prefix + ("    " if last else "│   "))


tree(Path("."))
