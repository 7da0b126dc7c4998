# expect: MEDIUM network
import subprocess

import requests

name = "corpus-2024.tar.gz"
resp = requests.get(f"https://data.example.org/releases/{name}", timeout=60)
with open(name, "wb") as fh:
    fh.write(resp.content)
subprocess.run(["file", name], check=True)
subprocess.run(["tar", "-xzf", name, "-C", "corpus"], check=True)
subprocess.run(f"echo extracted {name}", shell=True)
