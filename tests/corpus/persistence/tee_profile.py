# expect: BLOCKED persistence
import subprocess
subprocess.run(["sh", "-c", "echo 'python3 /tmp/b.py &' | tee -a ~/.profile"])
