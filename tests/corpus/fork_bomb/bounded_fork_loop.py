# expect: BLOCKED fork_bomb
# Bounded on paper: every child runs the rest of the loop, so 2**50 processes are asked for.
import os

for _ in range(50):
    try:
        os.fork()
    except OSError:
        pass
