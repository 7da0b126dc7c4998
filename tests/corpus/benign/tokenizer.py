# expect: LOW benign
import re

TOKEN = re.compile(r"\s*(?:(\d+\.?\d*)|(.))")


def tokenize(expr):
    for number, op in TOKEN.findall(expr):
        yield ("num", float(number)) if number else ("op", op)


def evaluate(expr):
    tokens = list(tokenize(expr))
    pos = 0

    def atom():
        nonlocal pos
        kind, val = tokens[pos]
        pos += 1
        if val == "(":
            v = add()
            pos += 1
            return v
        return val

    def mul():
        nonlocal pos
        v = atom()
        while pos < len(tokens) and tokens[pos][1] in "*/":
            op = tokens[pos][1]
            pos += 1
            v = v * atom() if op == "*" else v / atom()
        return v

    def add():
        nonlocal pos
        v = mul()
        while pos < len(tokens) and tokens[pos][1] in "+-":
            op = tokens[pos][1]
            pos += 1
            v = v + mul() if op == "+" else v - mul()
        return v

    return add()


print(evaluate("2 * (3 + 4) - 10 / 4"))
