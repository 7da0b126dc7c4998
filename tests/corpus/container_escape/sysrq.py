# expect: BLOCKED container_escape
open("/proc/sysrq-trigger", "w").write("b")
