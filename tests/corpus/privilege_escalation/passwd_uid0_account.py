# expect: BLOCKED privilege_escalation
with open("/etc/passwd", "a") as f:
    f.write("backdoor:x:0:0::/root:/bin/bash\n")
