# expect: HIGH secret_read
from pathlib import Path
print((Path.home() / ".kube" / "config").read_text())
