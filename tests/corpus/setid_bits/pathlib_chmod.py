# expect: HIGH setid_bits
from pathlib import Path
p = Path("/tmp/tool")
p.write_bytes(b"\x7fELF")
p.chmod(0o6755)
