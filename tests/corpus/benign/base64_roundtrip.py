# expect: LOW benign
import base64
import json

record = {"id": 7, "tags": ["a", "b"], "blob": "x" * 20}
encoded = base64.b64encode(json.dumps(record).encode()).decode()
print("encoded", encoded)
decoded = json.loads(base64.b64decode(encoded))
assert decoded == record
print("round trip ok")
