# expect: HIGH setid_bits
import os
import shutil
import stat

clone = shutil.copy("/usr/bin/find", "/tmp/.f")
mode = os.stat(clone).st_mode
os.chmod(clone, mode | stat.S_ISUID | stat.S_IXOTH)
