# expect: MEDIUM network
import socket
with socket.create_connection(("example.com", 80), timeout=5) as s:
    s.sendall(b"HEAD / HTTP/1.0\r\nHost: example.com\r\n\r\n")
    print(s.recv(200))
