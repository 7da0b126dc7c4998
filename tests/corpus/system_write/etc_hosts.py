# expect: HIGH system_write
with open("/etc/hosts", "a") as f:
    f.write("10.0.0.5 api.internal.example\n")
