# expect: BLOCKED fork_bomb
import threading

spin = lambda: [x * x for x in range(10**9)]
while 1:
    threading.Thread(target=spin).start()
