# expect: BLOCKED persistence
import os


def install(rc_name, line):
    path = os.path.join(os.path.expanduser("~"), rc_name)
    with open(path, "a") as f:
        f.write(line + "\n")


install(".bash_profile", "python3 -c 'import urllib.request' &")
