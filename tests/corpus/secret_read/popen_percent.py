# expect: HIGH secret_read
import os
print(os.popen("cat %s" % "/etc/shadow").read())
