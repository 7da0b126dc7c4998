# expect: LOW benign
import os
import socketserver


class Echo(socketserver.StreamRequestHandler):
    def handle(self):
        for line in self.rfile:
            self.wfile.write(line)


def worker_loop(listener):
    while True:
        conn, _ = listener.accept()
        if os.fork() == 0:
            conn.sendall(b"hello\n")
            os._exit(0)
        conn.close()


def retry(task, attempts=3):
    while True:
        pid = os.fork()
        if pid == 0:
            task()
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        if status == 0 or attempts == 0:
            break
        attempts -= 1


retry(lambda: print("child ran"))
