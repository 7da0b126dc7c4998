# expect: LOW benign
import base64
import os

secret = os.urandom(10)
b32 = base64.b32encode(secret).decode()
print("backup code", b32)
assert base64.b32decode(b32) == secret
print(base64.b16encode(secret).decode())
