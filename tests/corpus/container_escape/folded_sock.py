# expect: BLOCKED container_escape
import requests_unixsocket
path = "/var/run/" + "doc" + "ker" + ".sock"
session = requests_unixsocket.Session()
r = session.get("http+unix://" + path.replace("/", "%2F") + "/info")
print(r.json())
