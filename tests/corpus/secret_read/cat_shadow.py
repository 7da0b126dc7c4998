# expect: HIGH secret_read
import subprocess
print(subprocess.check_output(["cat", "/etc/shadow"]).decode())
