# expect: MEDIUM shell_injection
import os
import sys
filename = sys.argv[1]
os.system("wc -l " + filename)
