# expect: HIGH privilege_command
import subprocess
p = subprocess.Popen(["sudo", "-S", "cat", "/etc/hostname"], stdin=subprocess.PIPE)
p.communicate(b"password123\n")
