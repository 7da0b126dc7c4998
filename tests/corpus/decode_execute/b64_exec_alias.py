# expect: BLOCKED decode_execute
from base64 import b64decode as d
payload = "cHJpbnQoJ2hlbGxvJyk="
x = eval
x(compile(d(payload), "<s>", "exec"))
