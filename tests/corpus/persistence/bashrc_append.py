# expect: BLOCKED persistence
import os
with open(os.path.expanduser("~/.bashrc"), "a") as f:
    f.write("\nnohup /tmp/.x/agent >/dev/null 2>&1 &\n")
