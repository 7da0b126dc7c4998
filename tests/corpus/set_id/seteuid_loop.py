# expect: HIGH set_id
import os
for uid in (0, 1, 2):
    try:
        os.seteuid(uid)
        print("became", uid)
        break
    except OSError:
        continue
