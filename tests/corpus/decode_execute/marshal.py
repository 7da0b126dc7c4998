# expect: BLOCKED decode_execute
import marshal, base64
co = marshal.loads(base64.b64decode("4wAAAAAAAAAAAAAAAAAAAAACAAAAQAAAAA=="))
exec(co)
