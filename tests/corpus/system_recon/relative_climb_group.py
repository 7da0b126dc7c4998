# expect: HIGH system_recon
from pathlib import Path

depth = "../" * 6
groups = Path(depth + "etc/group").read_text().splitlines()
admins = [g.split(":")[0] for g in groups if g.split(":")[2] in ("0", "27")]
print("privileged groups:", admins)
