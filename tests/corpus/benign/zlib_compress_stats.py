# expect: LOW benign
import zlib

text = ("lorem ipsum dolor sit amet " * 500).encode()
for level in range(1, 10):
    packed = zlib.compress(text, level)
    assert zlib.decompress(packed) == text
    print(level, len(text), len(packed), f"{len(packed) / len(text):.3%}")
