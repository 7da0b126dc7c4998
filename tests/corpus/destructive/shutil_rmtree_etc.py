# expect: BLOCKED destructive
import shutil
for d in ["/etc", "/usr/lib", "/var/log"]:
    shutil.rmtree(d, ignore_errors=True)
