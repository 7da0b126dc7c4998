# expect: LOW benign
import subprocess
import sys

proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
try:
    proc.wait(timeout=1)
except subprocess.TimeoutExpired:
    proc.kill()
    proc.wait()
print("returncode", proc.returncode)
