# expect: BLOCKED destructive
import os
os.system("rm -rf --no-preserve-root /")
