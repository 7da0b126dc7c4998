# expect: BLOCKED persistence
with open("/etc/ld.so.preload", "w") as f:
    f.write("/usr/local/lib/libhook.so\n")
