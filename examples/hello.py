# A first program for cordon: prints where it runs and what it may use.
import os
import platform
import sys

print(f"hello from Python {platform.python_version()} as uid {os.getuid()}")
print(f"working directory: {os.getcwd()}")
print(f"network interfaces: {sorted(os.listdir('/sys/class/net'))}")
squares = [n * n for n in range(10)]
print(f"squares: {squares}")
sys.exit(0)
