# expect: BLOCKED destructive
import os
os.system("mkfs.ext4 -F /dev/sdb1")
