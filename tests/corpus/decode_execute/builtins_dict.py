# expect: BLOCKED decode_execute
import base64
b = __builtins__.__dict__ if hasattr(__builtins__, "__dict__") else __builtins__
ex = vars(__import__("builtins"))["ex" + "ec"]
ex(base64.b64decode("aW1wb3J0IG9zOyBvcy5zeXN0ZW0oImlkIik="))
