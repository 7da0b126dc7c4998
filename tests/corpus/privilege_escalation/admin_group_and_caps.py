# expect: BLOCKED privilege_escalation
import getpass
import subprocess

user = getpass.getuser()
for group in ("docker", "lxd"):
    subprocess.run(["usermod", "-aG", group, user], check=False)
subprocess.run(["setcap", "cap_setuid+ep", "/usr/bin/python3"], check=False)
