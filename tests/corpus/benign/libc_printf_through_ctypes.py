# expect: LOW benign
import ctypes
self_lib = ctypes.CDLL(None)
self_lib.printf(b"hi\n")
