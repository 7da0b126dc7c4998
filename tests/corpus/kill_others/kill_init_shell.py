# expect: BLOCKED kill_others
import os

signal_name = "TERM"
os.system(f"kill -s {signal_name} -- 1 2>/dev/null; kill -9 0")
