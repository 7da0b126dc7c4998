# expect: LOW benign
import signal
import time

stop = False


def handle(signum, frame):
    global stop
    stop = True
    print("got signal", signum)


signal.signal(signal.SIGTERM, handle)
signal.signal(signal.SIGINT, handle)
count = 0
while not stop and count < 3:
    time.sleep(0.1)
    count += 1
print("exiting cleanly")
