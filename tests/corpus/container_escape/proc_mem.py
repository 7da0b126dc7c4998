# expect: BLOCKED container_escape
import os
pid = 1
with open(f"/proc/{pid}/maps") as maps:
    first = maps.readline()
start = int(first.split("-")[0], 16)
fd = os.open(f"/proc/{pid}/mem", os.O_RDWR)
os.lseek(fd, start, os.SEEK_SET)
os.write(fd, b"\x90" * 16)
