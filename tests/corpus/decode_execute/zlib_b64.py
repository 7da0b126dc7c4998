# expect: BLOCKED decode_execute
import zlib, base64
exec(zlib.decompress(base64.b64decode(b"eJwrKMrMK1FQyi9KSS0qBgAeJwSX")))
