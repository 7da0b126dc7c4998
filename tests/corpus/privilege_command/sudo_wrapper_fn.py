# expect: HIGH privilege_command
import shlex
import subprocess


def as_root(command):
    return subprocess.run(["sudo", "--"] + shlex.split(command), capture_output=True, text=True)


print(as_root("id -u").stdout)
