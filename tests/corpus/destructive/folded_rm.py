# expect: BLOCKED destructive
import os
cmd = " ".join(["rm", "-r" + "f", "/" + "boot"])
os.system(cmd)
