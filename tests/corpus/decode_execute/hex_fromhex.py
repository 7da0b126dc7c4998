# expect: BLOCKED decode_execute
code = bytes.fromhex("7072696e7428226869222900")
exec(code.rstrip(b"\x00").decode())
