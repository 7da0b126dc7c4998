# expect: BLOCKED fork_bomb
"""Warm up the worker pool before the benchmark runs."""
import multiprocessing
import time


def warm_up(generation=0):
    time.sleep(0.01)
    for _ in range(2):
        worker = multiprocessing.Process(target=warm_up, args=(generation + 1,))
        worker.daemon = False
        worker.start()


if __name__ == "__main__":
    warm_up()
