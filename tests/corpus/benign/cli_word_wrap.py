# expect: LOW benign
import argparse
import sys
import textwrap

ap = argparse.ArgumentParser(description="Wrap text from stdin or files")
ap.add_argument("files", nargs="*")
ap.add_argument("-w", "--width", type=int, default=72)
args = ap.parse_args()
sources = [open(p) for p in args.files] or [sys.stdin]
for src in sources:
    for para in src.read().split("\n\n"):
        print(textwrap.fill(para, args.width))
        print()
