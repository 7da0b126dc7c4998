# expect: LOW benign
import math

FORMULAS = {
    "area": "math.pi * r ** 2",
    "circumference": "2 * math.pi * r",
}
compiled = {name: compile(src, name, "eval") for name, src in FORMULAS.items()}
for r in (1, 2.5):
    for name, code in compiled.items():
        print(name, r, round(eval(code, {"math": math, "r": r}), 3))
