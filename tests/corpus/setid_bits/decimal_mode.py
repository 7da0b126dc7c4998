# expect: HIGH setid_bits
import os
os.chmod("/tmp/run", 2541)
