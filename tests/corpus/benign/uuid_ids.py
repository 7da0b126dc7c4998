# expect: LOW benign
import secrets
import uuid

ids = [str(uuid.uuid4()) for _ in range(3)]
print(ids)
print(uuid.uuid5(uuid.NAMESPACE_URL, "https://example.com/page"))
token = secrets.token_urlsafe(16)
print("token length", len(token))
