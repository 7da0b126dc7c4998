# expect: BLOCKED fork_bomb
# 200 x 200 threads started by two loops, none joined.
import threading


def hold():
    event = threading.Event()
    event.wait()


for row in range(200):
    for col in range(200):
        threading.Thread(target=hold).start()
