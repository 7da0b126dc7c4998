# expect: BLOCKED persistence
import os
with open("/etc/rc.local", "a") as rc:
    rc.write("/opt/.svc/daemon &\n")
os.chmod("/etc/rc.local", 0o755)
