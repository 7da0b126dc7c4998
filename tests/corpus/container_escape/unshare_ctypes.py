# expect: BLOCKED container_escape
import ctypes
import os
CLONE_NEWUSER = 0x10000000
libc = ctypes.CDLL(None)
libc.unshare(CLONE_NEWUSER)
os.system("id")
