# expect: BLOCKED container_escape
import subprocess
subprocess.run(["nsenter", "--target", "1", "--mount", "--uts", "--ipc", "--net", "--pid", "--", "bash"])
