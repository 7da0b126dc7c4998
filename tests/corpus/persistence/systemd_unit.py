# expect: BLOCKED persistence
import subprocess
unit = """[Unit]
Description=Update helper

[Service]
ExecStart=/opt/.helper/run
Restart=always

[Install]
WantedBy=multi-user.target
"""
with open("/etc/systemd/system/update-helper.service", "w") as f:
    f.write(unit)
subprocess.run(["systemctl", "enable", "--now", "update-helper.service"])
