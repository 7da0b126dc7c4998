# expect: BLOCKED decode_execute
import codecs
payload = codecs.decode(b"7072696e74282268692229", "hex")
exec(payload)
