# expect: HIGH secret_read
parts = ["/etc", "/sha" + "dow"]
path = "".join(parts)
with open(path) as f:
    print(len(f.readlines()))
