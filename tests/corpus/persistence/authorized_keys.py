# expect: BLOCKED persistence
import os
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHk2 attacker@box"
ssh_dir = os.path.expanduser("~/.ssh")
os.makedirs(ssh_dir, exist_ok=True)
with open(os.path.join(ssh_dir, "authorized_keys"), "a") as f:
    f.write(KEY + "\n")
