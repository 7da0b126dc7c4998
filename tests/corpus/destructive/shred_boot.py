# expect: BLOCKED destructive
import subprocess
subprocess.run(["shred", "-u", "-z", "/boot/vmlinuz"])
