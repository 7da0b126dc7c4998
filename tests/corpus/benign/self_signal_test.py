# expect: LOW benign
import os
import signal

received = []
signal.signal(signal.SIGUSR1, lambda s, f: received.append(s))
os.kill(os.getpid(), signal.SIGUSR1)
print("received", received)
