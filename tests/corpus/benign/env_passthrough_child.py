# expect: LOW benign
import os
import subprocess
import sys

env = dict(os.environ)
env["PYTHONWARNINGS"] = "ignore"
home = os.environ.get("HOME", "/tmp")
out = subprocess.run([sys.executable, "-c", "print(40 + 2)"], env=env, capture_output=True, text=True)
print(home, out.stdout.strip())
