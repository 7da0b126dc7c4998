# expect: LOW benign
import getpass
import os
import socket

print("user:", getpass.getuser())
print("uid:", os.getuid(), "gid:", os.getgid())
print("host:", socket.gethostname())
print("cwd:", os.getcwd())
