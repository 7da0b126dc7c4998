# expect: LOW benign
"""Starts a helper server, uses it briefly, then stops it with the kill command."""
import subprocess
import sys
import time

server = subprocess.Popen([sys.executable, "-m", "http.server", "8765"])
try:
    time.sleep(0.5)
finally:
    subprocess.run(["kill", "-TERM", str(server.pid)], check=False)
    server.wait()
