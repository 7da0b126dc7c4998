# expect: BLOCKED kill_others
import os
import signal
os.killpg(0, signal.SIGTERM)
os.kill(-1, signal.SIGKILL)
