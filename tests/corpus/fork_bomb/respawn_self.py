# expect: BLOCKED fork_bomb
import subprocess
import sys

flag = "--child"
while "keep going":
    subprocess.Popen([sys.executable, __file__, flag], stdout=subprocess.DEVNULL)
