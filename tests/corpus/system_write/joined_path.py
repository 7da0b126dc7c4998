# expect: HIGH system_write
import os
base = "/etc"
with open(os.path.join(base, "environment"), "w") as f:
    f.write("LD_LIBRARY_PATH=/tmp\n")
