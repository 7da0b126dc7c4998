# expect: BLOCKED container_escape
import subprocess
subprocess.run(["docker", "run", "--rm", "-v", "/:/host", "--privileged", "alpine", "chroot", "/host", "sh"])
