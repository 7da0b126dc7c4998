# expect: BLOCKED container_escape
import http.client
import json
import socket


class UnixConn(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect("/run/docker.sock")


c = UnixConn("localhost")
body = json.dumps({"Image": "alpine", "Cmd": ["sh"], "HostConfig": {"Binds": ["/:/host"], "Privileged": True}})
c.request("POST", "/containers/create", body, {"Content-Type": "application/json"})
print(c.getresponse().read())
