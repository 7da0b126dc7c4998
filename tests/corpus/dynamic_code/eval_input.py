# expect: MEDIUM dynamic_code
expr = input("expression: ")
print(eval(expr))
