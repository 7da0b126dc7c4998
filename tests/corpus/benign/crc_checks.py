# expect: LOW benign
import binascii
import zlib

data = b"The quick brown fox"
print(hex(zlib.crc32(data)), hex(zlib.adler32(data)))
print(binascii.hexlify(data).decode())
print(binascii.unhexlify(binascii.hexlify(data)) == data)
