# expect: HIGH set_id
import os
os.setresuid(0, 0, 0)
