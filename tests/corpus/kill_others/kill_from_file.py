# expect: BLOCKED kill_others
import os
import signal
with open("/var/run/nginx.pid") as f:
    pid = int(f.read().strip())
os.kill(pid, signal.SIGTERM)
