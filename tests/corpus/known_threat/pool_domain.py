# expect: BLOCKED known_threat
import requests
r = requests.get("https://xmrpool.eu/api/stats")
print(r.json())
