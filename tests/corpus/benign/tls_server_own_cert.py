# expect: LOW benign
import http.server
import ssl
from pathlib import Path

here = Path(__file__).parent
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(here / "certs" / "server.pem", here / "certs" / "server.key")
for pem in sorted((here / "certs").glob("*.pem")):
    print("bundled certificate:", pem.name, len(pem.read_text()))
