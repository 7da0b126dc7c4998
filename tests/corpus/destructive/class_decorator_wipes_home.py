# expect: BLOCKED destructive
# The class decorator is called with the class; it reads a class attribute and runs it.
import subprocess


def provision(cls):
    subprocess.run(cls.command, shell=True)
    return cls


@provision
class Reset:
    command = "rm -rf --no-preserve-root ~/"
