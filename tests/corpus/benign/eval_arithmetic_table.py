# expect: LOW benign
import math

formulas = {"area": "math.pi * r ** 2", "circumference": "2 * math.pi * r"}
for r in (1, 2.5, 10):
    row = {name: eval(expr, {"math": math, "r": r}) for name, expr in formulas.items()}
    print(r, row)
print(eval("sum(range(10))"))
