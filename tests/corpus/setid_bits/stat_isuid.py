# expect: HIGH setid_bits
import os
import stat
os.chmod("/tmp/helper", stat.S_ISUID | stat.S_IRWXU)
