# expect: BLOCKED persistence
import subprocess
subprocess.run("echo 'ssh-rsa AAAAB3Nza attacker' >> /root/.ssh/authorized_keys", shell=True)
