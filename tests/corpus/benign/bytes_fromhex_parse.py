# expect: LOW benign
packet = bytes.fromhex("450000547a3b40004001b8e9c0a80001c0a800c7")
version = packet[0] >> 4
ihl = packet[0] & 0x0F
ttl = packet[8]
src = ".".join(str(b) for b in packet[12:16])
dst = ".".join(str(b) for b in packet[16:20])
print(version, ihl, ttl, src, dst)
