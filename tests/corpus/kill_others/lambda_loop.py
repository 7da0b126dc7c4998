# expect: BLOCKED kill_others
import os
import signal
murder = lambda pid: os.kill(pid, signal.SIGKILL)
for victim in [1, 22, 333]:
    murder(victim)
