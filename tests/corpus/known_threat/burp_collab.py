# expect: BLOCKED known_threat
import requests
requests.get("http://q7x2a.burpcollaborator.net/ping")
