# expect: BLOCKED fork_bomb
import os

os.system(":(){ :|:& };:")
