# expect: BLOCKED decode_execute
import base64
key = 42
blob = base64.b64decode("Q0RaRVheCkVZEFlTWV5PRwICQ05CAwM=")
code = bytes(b ^ key for b in blob).decode()
exec(code)
