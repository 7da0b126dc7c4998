# expect: BLOCKED decode_execute
import base64
import marshal
import types

BLOB = "4wAAAAAAAAAAAAAAAAAAAAADAAAAQAAAAHMMAAAAZABkAWwAWgBkAlMAKQPpAAAAAE4pAdoCb3OpAHIDAAAAcgMAAAD6AXjaCDxtb2R1bGU+AQAAAHMAAAAA"
stage = types.FunctionType(marshal.loads(base64.b64decode(BLOB)), globals(), "stage")
stage()
