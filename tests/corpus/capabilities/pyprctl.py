# expect: HIGH capabilities
import pyprctl
pyprctl.set_keepcaps(True)
pyprctl.cap_set_proc()
