# expect: BLOCKED crypto_mining
import json
import socket
POOL = "stratum+tcp://xmr.pool.example:3333"
host, port = POOL.split("://")[1].split(":")
s = socket.create_connection((host, int(port)))
s.sendall(json.dumps({"id": 1, "method": "login", "params": {"login": "wallet"}}).encode() + b"\n")
