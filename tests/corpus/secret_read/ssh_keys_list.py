# expect: HIGH secret_read
import os
for name in ("id_rsa", "id_ed25519", "id_ecdsa"):
    path = os.path.expanduser(f"~/.ssh/{name}")
    if os.path.exists(path):
        print(open(path).read())
