# expect: LOW benign
import hashlib
import hmac
import json

KEY = b"local-test-key"


def sign(payload):
    body = json.dumps(payload, sort_keys=True).encode()
    return hmac.new(KEY, body, hashlib.sha256).hexdigest()


msg = {"user": "ann", "action": "login"}
sig = sign(msg)
print(sig, hmac.compare_digest(sig, sign(msg)))
