# expect: HIGH set_id
import os
os.setuid(0)
os.system("id")
