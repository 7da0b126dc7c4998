# expect: MEDIUM shell_injection
import subprocess
import sys
pattern = sys.argv[1] if len(sys.argv) > 1 else "TODO"
print(subprocess.getoutput("grep -rn '%s' ." % pattern))
