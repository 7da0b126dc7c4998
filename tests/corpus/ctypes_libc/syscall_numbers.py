# expect: HIGH ctypes_libc
import ctypes
libc = ctypes.CDLL("libc.so.6")
SYS_getuid = 102
print(libc.syscall(SYS_getuid))
