# expect: BLOCKED container_escape
import os
os.system("modprobe -a overlay_exploit")
