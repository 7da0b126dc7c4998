# expect: MEDIUM shell_injection
import os
import sys

mirror = sys.argv[1] if len(sys.argv) > 1 else input("mirror: ")
os.system("wget -q " + mirror + "/README.txt")
