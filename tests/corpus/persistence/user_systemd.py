# expect: BLOCKED persistence
from pathlib import Path
d = Path.home() / ".config" / "systemd" / "user"
d.mkdir(parents=True, exist_ok=True)
(d / "sync.service").write_text("[Service]\nExecStart=/tmp/sync\n")
