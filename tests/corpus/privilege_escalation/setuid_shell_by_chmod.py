# expect: BLOCKED privilege_escalation
import subprocess
subprocess.run(["chmod", "u+s", "/tmp/sh"])
