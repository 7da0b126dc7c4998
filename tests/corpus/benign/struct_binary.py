# expect: LOW benign
import struct

records = [(1, 3.5, b"abc"), (2, -1.25, b"xyz")]
fmt = "<id3s"
blob = b"".join(struct.pack(fmt, *r) for r in records)
with open("records.bin", "wb") as f:
    f.write(blob)
size = struct.calcsize(fmt)
with open("records.bin", "rb") as f:
    data = f.read()
for off in range(0, len(data), size):
    print(struct.unpack(fmt, data[off:off + size]))
