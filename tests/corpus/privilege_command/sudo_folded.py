# expect: HIGH privilege_command
import subprocess
tool = "su" + "do"
subprocess.call([tool, "-l"])
