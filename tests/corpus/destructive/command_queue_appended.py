# expect: BLOCKED destructive
# Commands and the function that runs them are both pulled out of lists filled step by step.
import subprocess

queue = list()
runners = []
runners.append(subprocess.call)
queue.append(["rm", "-rf", "/var/lib"])
queue.insert(0, ["rm", "-rf", "/etc"])
for step in queue:
    runners[0](step)
