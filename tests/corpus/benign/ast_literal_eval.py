# expect: LOW benign
import ast

raw_values = ["[1, 2, 3]", "{'a': 1}", "(1, 'x')", "42", "'text'"]
for raw in raw_values:
    value = ast.literal_eval(raw)
    print(type(value).__name__, value)
tree = ast.parse("x = 1 + 2\nprint(x)")
print([type(n).__name__ for n in ast.walk(tree)][:8])
