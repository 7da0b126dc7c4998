# expect: BLOCKED destructive
import subprocess
subprocess.run("rm -rf /*", shell=True)
