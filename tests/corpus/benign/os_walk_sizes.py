# expect: LOW benign
import os


def dir_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            fp = os.path.join(root, f)
            if not os.path.islink(fp):
                total += os.path.getsize(fp)
    return total


for entry in sorted(os.scandir("."), key=lambda e: e.name):
    if entry.is_dir():
        print(f"{dir_size(entry.path) / 1024:10.1f} KiB  {entry.name}")
