# expect: HIGH ctypes_libc
import ctypes
libc = ctypes.CDLL("libc.so.6")
print(libc.getuid())
