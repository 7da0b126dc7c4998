# expect: MEDIUM network
import requests
r = requests.get("https://api.github.com/repos/python/cpython", timeout=10)
print(r.json()["stargazers_count"])
