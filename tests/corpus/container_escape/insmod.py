# expect: BLOCKED container_escape
import subprocess
subprocess.check_call(["insmod", "/tmp/rootkit.ko"])
