# expect: HIGH capabilities
import prctl
prctl.cap_effective.sys_admin = True
prctl.set_keepcaps(True)
