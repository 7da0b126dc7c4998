# expect: LOW benign
import sys


def describe(cmd):
    match cmd.split():
        case ["go", direction]:
            return f"going {direction}"
        case ["take", *items] if items:
            return f"taking {', '.join(items)}"
        case ["quit"]:
            return "bye"
        case _:
            return "unknown"


for line in ["go north", "take lamp key", "dance", "quit"]:
    if (n := len(line)) > 3:
        print(n, describe(line))
sys.exit(0)
