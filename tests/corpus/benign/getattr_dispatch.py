# expect: LOW benign
class Calculator:
    def add(self, a, b):
        return a + b

    def sub(self, a, b):
        return a - b

    def mul(self, a, b):
        return a * b


calc = Calculator()
for op, a, b in [("add", 1, 2), ("mul", 3, 4), ("sub", 9, 5)]:
    fn = getattr(calc, op)
    print(op, fn(a, b))
