# expect: LOW benign
from email import policy
from email.parser import BytesParser

with open("message.eml", "rb") as f:
    msg = BytesParser(policy=policy.default).parse(f)
print("From:", msg["from"])
print("Subject:", msg["subject"])
body = msg.get_body(preferencelist=("plain",))
print(body.get_content()[:300] if body else "(no text part)")
