# expect: BLOCKED kill_others
import subprocess
subprocess.run(["killall", "-9", "sshd"])
