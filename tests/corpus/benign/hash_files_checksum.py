# expect: LOW benign
import hashlib
import os
import sys


def sha256_of(path, chunk=65536):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


root = sys.argv[1] if len(sys.argv) > 1 else "."
for dirpath, _, files in os.walk(root):
    for name in sorted(files):
        p = os.path.join(dirpath, name)
        print(sha256_of(p), p)
