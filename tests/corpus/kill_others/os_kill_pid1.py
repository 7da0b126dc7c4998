# expect: BLOCKED kill_others
import os
import signal
os.kill(1, signal.SIGKILL)
