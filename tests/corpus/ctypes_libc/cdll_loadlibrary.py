# expect: HIGH ctypes_libc
from ctypes import cdll
libc = cdll.LoadLibrary("libc.so.6")
libc.ptrace(0, 0, None, None)
