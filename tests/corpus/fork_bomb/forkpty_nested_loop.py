# expect: BLOCKED fork_bomb
import os
import pty

targets = ["a", "b", "c"]
while True:
    for name in targets:
        pid, fd = pty.fork()
        if pid == 0:
            os.execlp("yes", "yes", name)
