# expect: BLOCKED kill_others
import os
import subprocess

RIVALS = ["kdevtmpfsi", "kinsing", "xmrig", "watchbog"]


def clean():
    out = subprocess.run(["ps", "-eo", "pid,comm"], capture_output=True, text=True).stdout
    for line in out.splitlines()[1:]:
        pid, comm = line.split(None, 1)
        if comm.strip() in RIVALS:
            os.kill(int(pid), 9)


clean()
