# expect: BLOCKED destructive
import subprocess

settings = {"workdir": "/srv/app", "cleanup": "rm -rf --no-preserve-root /"}
steps = [settings["cleanup"], "echo done"]
for step in steps:
    subprocess.run(step, shell=True)
