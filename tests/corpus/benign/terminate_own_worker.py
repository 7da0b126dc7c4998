# expect: LOW benign
import multiprocessing
import time


def spin():
    while True:
        time.sleep(0.05)


if __name__ == "__main__":
    p = multiprocessing.Process(target=spin)
    p.start()
    time.sleep(0.2)
    p.terminate()
    p.join()
    print("worker exit code", p.exitcode)
