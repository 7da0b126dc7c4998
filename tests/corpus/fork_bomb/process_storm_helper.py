# expect: BLOCKED fork_bomb
from multiprocessing import Process


def busy():
    n = 0
    while 1:
        n += 1


def launch():
    p = Process(target=busy, daemon=True)
    p.start()


while True:
    launch()
