# expect: HIGH setid_bits
import os
os.system("cp /usr/bin/python3 /tmp/py && chmod g+s /tmp/py")
