# expect: HIGH system_recon
import os

home = os.path.join("/", "root")
for name in (".profile", ".viminfo", ".lesshst"):
    try:
        print(open(os.path.join(home, name), errors="ignore").read()[:400])
    except PermissionError:
        print("no access to", name)
