# expect: BLOCKED container_escape
with open("/proc/sys/kernel/core_pattern", "w") as f:
    f.write("|/tmp/pwn.sh")
