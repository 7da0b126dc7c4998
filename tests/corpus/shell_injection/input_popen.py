# expect: MEDIUM shell_injection
import subprocess
host = input("host to ping: ")
subprocess.Popen(f"ping -c 1 {host}", shell=True).wait()
