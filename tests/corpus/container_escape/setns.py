# expect: BLOCKED container_escape
import os
fd = os.open("/proc/1/ns/mnt", os.O_RDONLY)
os.setns(fd, 0)
os.execv("/bin/sh", ["sh"])
