# expect: BLOCKED decode_execute
import lzma
import base64
exec(lzma.decompress(base64.b85decode("{Wp48S^xk9=GL@E0stWa8~^|S5YJf5;A<xE")))
