# expect: BLOCKED container_escape
import socket
p = "".join(chr(c) for c in [47, 118, 97, 114, 47, 114, 117, 110, 47, 100, 111, 99, 107, 101, 114, 46, 115, 111, 99, 107])
s = socket.socket(socket.AF_UNIX)
s.connect(p)
