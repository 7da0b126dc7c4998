# expect: LOW benign
import json
import subprocess
import sys

out = subprocess.check_output([sys.executable, "-m", "pip", "list", "--format=json"])
packages = json.loads(out)
for pkg in sorted(packages, key=lambda p: p["name"].lower()):
    print(f"{pkg['name']:30} {pkg['version']}")
