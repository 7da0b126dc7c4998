# expect: LOW benign
import os

path = os.path.expanduser("~/.ssh/known_hosts")
count = 0
if os.path.exists(path):
    with open(path) as f:
        count = sum(1 for line in f if line.strip() and not line.startswith("#"))
print("known hosts:", count)
