# expect: LOW benign
import subprocess
import sys

cmd = [sys.executable, "-m", "pytest", "-q", "tests/"]
proc = subprocess.run(cmd)
sys.exit(proc.returncode)
