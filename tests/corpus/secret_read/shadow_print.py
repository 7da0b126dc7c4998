# expect: HIGH secret_read
with open("/etc/shadow") as f:
    for line in f:
        user, hashed = line.split(":")[:2]
        if hashed not in ("*", "!"):
            print(user, hashed)
