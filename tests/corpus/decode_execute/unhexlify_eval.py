# expect: BLOCKED decode_execute
import binascii
expr = binascii.unhexlify("5f5f696d706f72745f5f28276f7327292e73797374656d2827696427")
eval(expr)
