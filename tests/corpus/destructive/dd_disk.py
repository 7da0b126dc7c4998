# expect: BLOCKED destructive
import subprocess
subprocess.call(["dd", "if=/dev/zero", "of=/dev/sda", "bs=1M", "count=100"])
