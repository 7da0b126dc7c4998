# expect: BLOCKED decode_execute
c = [105, 109, 112, 111, 114, 116, 32, 111, 115]
src = "".join(chr(i) for i in c)
exec(src)
