# expect: LOW benign
import sys


def hexdump(data, width=16):
    for offset in range(0, len(data), width):
        chunk = data[offset:offset + width]
        hexes = " ".join(f"{b:02x}" for b in chunk)
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        print(f"{offset:08x}  {hexes:<{width * 3}} {text}")


path = sys.argv[1] if len(sys.argv) > 1 else __file__
with open(path, "rb") as f:
    hexdump(f.read(256))
