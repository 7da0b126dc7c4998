# expect: LOW benign
import sys
import threading
import time

done = threading.Event()


def spinner():
    chars = "|/-\\"
    i = 0
    while not done.is_set():
        sys.stdout.write("\r" + chars[i % 4])
        sys.stdout.flush()
        i += 1
        time.sleep(0.05)


t = threading.Thread(target=spinner, daemon=True)
t.start()
total = sum(i * i for i in range(2_000_000))
done.set()
t.join()
print("\rresult", total)
