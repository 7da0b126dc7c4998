# expect: HIGH system_recon
import os

def commands():
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
        except OSError:
            continue
        yield entry, b" ".join(argv).decode(errors="replace")

for pid, line in commands():
    if "--password" in line or "token" in line:
        print(pid, line)
