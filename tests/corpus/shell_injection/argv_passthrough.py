# expect: MEDIUM shell_injection
import subprocess
import sys

# thin wrapper: run whatever we were given, with a timeout
result = subprocess.run(sys.argv[1:], timeout=30)
sys.exit(result.returncode)
