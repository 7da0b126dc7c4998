# expect: BLOCKED container_escape
with open("/dev/mem", "rb") as mem:
    mem.seek(0xF0000)
    print(mem.read(64).hex())
