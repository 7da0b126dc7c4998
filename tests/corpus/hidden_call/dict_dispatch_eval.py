# expect: HIGH hidden_call
ACTIONS = {
    "version": "__import__('sys').version",
    "whoami": "__import__('subprocess').getoutput('id -un')",
}


def dispatch(name, table=ACTIONS):
    return eval(table.get(name, "None"))


print(dispatch("version"), dispatch("whoami"))
