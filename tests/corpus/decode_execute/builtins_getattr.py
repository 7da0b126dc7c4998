# expect: BLOCKED decode_execute
import base64
import builtins
f = getattr(builtins, base64.b64decode("ZXhlYw==").decode())
f(base64.b64decode("cHJpbnQoMSk="))
