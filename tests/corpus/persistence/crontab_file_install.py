# expect: BLOCKED persistence
import subprocess
import tempfile
with tempfile.NamedTemporaryFile("w", delete=False, suffix=".cron") as tmp:
    tmp.write("@reboot /home/user/.cache/run.sh\n")
subprocess.run(["crontab", tmp.name], check=True)
