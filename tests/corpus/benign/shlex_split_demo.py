# expect: LOW benign
import shlex
import subprocess

command = "ls -la 'My Documents'"
argv = shlex.split(command)
print(argv)
print(shlex.join(["echo", "a b", "c"]))
subprocess.run(["echo", "listing:", *argv[1:]])
