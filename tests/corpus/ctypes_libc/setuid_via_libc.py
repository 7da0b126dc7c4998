# expect: HIGH ctypes_libc
import ctypes
libc = ctypes.CDLL("libc.so.6", use_errno=True)
if libc.setuid(0) != 0:
    print("errno", ctypes.get_errno())
