# expect: BLOCKED kill_others
import psutil
for proc in psutil.process_iter(["name"]):
    if proc.info["name"] in ("sshd", "dockerd", "containerd"):
        proc.kill()
