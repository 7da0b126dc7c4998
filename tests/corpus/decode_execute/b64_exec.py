# expect: BLOCKED decode_execute
import base64
exec(base64.b64decode("aW1wb3J0IG9zO29zLnN5c3RlbSgnaWQnKQ=="))
