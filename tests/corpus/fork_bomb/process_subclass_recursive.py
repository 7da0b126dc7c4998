# expect: BLOCKED fork_bomb
from multiprocessing import Process


class Replicator(Process):
    def run(self):
        for _ in range(2):
            Replicator().start()


if __name__ == "__main__":
    Replicator().start()
