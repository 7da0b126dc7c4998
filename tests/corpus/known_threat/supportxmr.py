# expect: BLOCKED known_threat
import socket
conn = socket.create_connection(("pool.supportxmr.com", 3333))
conn.sendall(b'{"method":"login"}\n')
