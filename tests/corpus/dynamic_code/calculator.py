# expect: MEDIUM dynamic_code
import sys


def calc(line):
    return eval(line, {"__builtins__": {}}, {})


for line in sys.stdin:
    print(calc(line.strip()))
