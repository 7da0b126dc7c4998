# expect: HIGH capabilities
import ctypes
libc = ctypes.CDLL("libc.so.6")
hdr = (ctypes.c_uint32 * 2)(0x20080522, 0)
data = (ctypes.c_uint32 * 6)()
libc.capset(ctypes.byref(hdr), ctypes.byref(data))
