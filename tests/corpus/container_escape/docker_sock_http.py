# expect: BLOCKED container_escape
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("/var/run/docker.sock")
s.sendall(b"GET /containers/json HTTP/1.0\r\n\r\n")
print(s.recv(65536).decode())
