# expect: MEDIUM dynamic_code
import sys
with open(sys.argv[1]) as f:
    exec(f.read())
