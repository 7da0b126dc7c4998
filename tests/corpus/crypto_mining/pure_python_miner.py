# expect: BLOCKED crypto_mining
import hashlib
import json
import socket

POOL_HOST = "solo.ckpool.org"
POOL_PORT = 3333
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.connect((POOL_HOST, POOL_PORT))
s.sendall(b'{"id": 1, "method": "mining.subscribe", "params": []}\n')
s.sendall(b'{"params": ["wallet.worker", "x"], "id": 2, "method": "mining.authorize"}\n')
nonce = 0
while True:
    header = b"blockheader" + nonce.to_bytes(4, "little")
    h = hashlib.sha256(hashlib.sha256(header).digest()).digest()
    if h[::-1].hex().startswith("00000000"):
        s.sendall(json.dumps({"method": "mining.submit", "params": [nonce]}).encode())
    nonce += 1
