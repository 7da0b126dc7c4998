# expect: HIGH capabilities
import ctypes
PR_SET_KEEPCAPS = 8
libc = ctypes.CDLL("libc.so.6")
libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)
