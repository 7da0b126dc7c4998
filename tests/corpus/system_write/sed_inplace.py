# expect: HIGH system_write
import subprocess
subprocess.run(["sed", "-i", "s/^PermitRootLogin.*/PermitRootLogin yes/", "/etc/ssh/sshd_config"])
