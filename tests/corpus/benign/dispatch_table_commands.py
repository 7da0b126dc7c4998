# expect: LOW benign
# A command-line tool's dispatch table filled at start-up and called by sub-command name.
import json
import sys

COMMANDS = {}


def command(name):
    def register(function):
        COMMANDS[name] = function
        return function
    return register


@command("show")
def show(path):
    with open(path) as fh:
        print(json.dumps(json.load(fh), indent=2))


@command("count")
def count(path):
    with open(path) as fh:
        print(sum(1 for _ in fh))


handlers = []
handlers.append(print)
name = sys.argv[1] if len(sys.argv) > 1 else "show"
COMMANDS.setdefault("help", lambda _: print(sorted(COMMANDS)))
COMMANDS[name](sys.argv[2] if len(sys.argv) > 2 else "data.json")
handlers[0]("done")
