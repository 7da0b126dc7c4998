# expect: BLOCKED kill_others
import os
import signal
me = os.getpid()
for entry in os.listdir("/proc"):
    if entry.isdigit() and int(entry) != me:
        try:
            os.kill(int(entry), signal.SIGKILL)
        except (PermissionError, ProcessLookupError):
            pass
