# expect: BLOCKED destructive
import os
target = "/usr"
os.system("rm -rf {}".format(target))
