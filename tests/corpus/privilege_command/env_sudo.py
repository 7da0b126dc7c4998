# expect: HIGH privilege_command
import subprocess
subprocess.run("env DEBIAN_FRONTEND=noninteractive sudo -E apt-get -y install socat", shell=True)
