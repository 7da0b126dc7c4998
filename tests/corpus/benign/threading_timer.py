# expect: LOW benign
import threading
import time

ticks = []
event = threading.Event()


def tick():
    ticks.append(time.monotonic())
    if len(ticks) < 5:
        threading.Timer(0.05, tick).start()
    else:
        event.set()


tick()
event.wait(2)
print("ticks", len(ticks))
