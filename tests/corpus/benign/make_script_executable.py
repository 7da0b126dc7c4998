# expect: LOW benign
import os
import stat
import subprocess
import sys

script = "hello.py"
with open(script, "w") as f:
    f.write("print('hello from script')\n")
os.chmod(script, os.stat(script).st_mode | stat.S_IXUSR)
print(subprocess.run([sys.executable, script], capture_output=True, text=True).stdout)
