# expect: BLOCKED fork_bomb
import threading


class Heartbeat(threading.Thread):
    """Keeps the service 'alive'."""

    def run(self):
        total = 0
        for i in range(10_000):
            total += i


while True:
    Heartbeat(daemon=True).start()
