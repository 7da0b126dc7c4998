# expect: HIGH privilege_command
import subprocess
out = subprocess.check_output(["doas", "id", "-u"])
print(out)
