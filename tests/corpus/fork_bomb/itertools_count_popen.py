# expect: BLOCKED fork_bomb
# An endless counter is a `while True` by another name.
import itertools
import subprocess

for n in itertools.count(1):
    subprocess.Popen(["sleep", str(3600 + n)])
