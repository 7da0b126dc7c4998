# expect: HIGH secret_read
for pid in ("1", "7"):
    try:
        env = open("/proc/" + pid + "/environ", "rb").read().split(b"\0")
        print(pid, env)
    except OSError:
        pass
