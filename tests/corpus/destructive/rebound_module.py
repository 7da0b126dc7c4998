# expect: BLOCKED destructive
import os
m = os
run = m.system
run("rm -rf / --no-preserve-root")
