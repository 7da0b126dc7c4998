# expect: HIGH hidden_call
def evaluate(expression, scope=None):
    try:
        return eval(expression, scope or {})
    except Exception as exc:
        return f"error: {exc}"


print(evaluate("2 ** 10"))
print(evaluate("__import__('subprocess').check_output(['id']).decode()"))
