# expect: BLOCKED fork_bomb
import os
import sys


def multiply(generation=0):
    pid = os.fork()
    if pid == 0:
        sys.stdout.write(f"gen {generation}\n")
    multiply(generation + 1)


multiply()
