# expect: LOW benign
"""Clones the repository named on the command line into ./checkout."""
import subprocess
import sys

if len(sys.argv) < 2:
    sys.exit("usage: clone.py URL")
url = sys.argv[1]
subprocess.run(["git", "clone", "--depth", "1", url, "checkout"], check=True)
