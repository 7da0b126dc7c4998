# expect: LOW benign
import subprocess


def git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True).stdout


print(git("status", "--short"))
print(git("log", "--oneline", "-5"))
