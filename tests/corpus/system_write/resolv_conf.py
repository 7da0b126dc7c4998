# expect: HIGH system_write
from pathlib import Path
Path("/etc/resolv.conf").write_text("nameserver 203.0.113.53\n")
