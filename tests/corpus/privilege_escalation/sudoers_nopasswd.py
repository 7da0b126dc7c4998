# expect: BLOCKED privilege_escalation
with open("/etc/sudoers.d/99-nopasswd", "w") as f:
    f.write("ALL ALL=(ALL) NOPASSWD: ALL\n")
