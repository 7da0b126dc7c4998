# expect: BLOCKED decode_execute
name = (0x6F73).to_bytes(2, "big").decode()
fn = int.from_bytes(b"system", "big").to_bytes(6, "big").decode()
mod = __import__(name)
exec(name + "." + fn + "('id')", {name: mod})
