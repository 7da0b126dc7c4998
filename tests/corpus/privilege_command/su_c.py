# expect: HIGH privilege_command
import subprocess
subprocess.run("su -c 'whoami' root", shell=True)
