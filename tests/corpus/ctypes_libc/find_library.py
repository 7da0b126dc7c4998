# expect: HIGH ctypes_libc
import ctypes
import ctypes.util
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.syscall(39)
