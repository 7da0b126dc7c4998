# expect: HIGH system_recon
import struct

RECORD = struct.Struct("hi32s4s32s256shhiii4i20s")

def last_logins(limit=20):
    seen = []
    with open("/var/log/wtmp", "rb") as log:
        while chunk := log.read(RECORD.size):
            if len(chunk) < RECORD.size:
                break
            fields = RECORD.unpack(chunk)
            user = fields[4].rstrip(b"\0").decode(errors="replace")
            host = fields[5].rstrip(b"\0").decode(errors="replace")
            if user:
                seen.append((user, host))
    return seen[-limit:]

for user, host in last_logins():
    print(f"{user:<16} {host}")
