# expect: BLOCKED fork_bomb
# A million spinning processes, started and never joined.
import multiprocessing


def spin():
    while True:
        pass


if __name__ == "__main__":
    for _ in range(10 ** 6):
        multiprocessing.Process(target=spin, daemon=True).start()
