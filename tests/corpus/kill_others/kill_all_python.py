# expect: BLOCKED kill_others
import os
os.system("pkill -9 python")
