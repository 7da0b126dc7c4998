# expect: HIGH ctypes_libc
import ctypes
self_lib = ctypes.CDLL(None)
self_lib.printf(b"hi\n")
