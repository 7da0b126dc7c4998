# expect: HIGH set_id
import os
os.setgroups([0])
os.setgid(0)
os.setuid(0)
