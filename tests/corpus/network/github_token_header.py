# expect: MEDIUM network
import os

import requests

token = os.environ["GITHUB_TOKEN"]
resp = requests.get(
    "https://api.github.com/repos/python/cpython/releases/latest",
    headers={"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json"},
    timeout=10,
)
print(resp.json()["tag_name"])
