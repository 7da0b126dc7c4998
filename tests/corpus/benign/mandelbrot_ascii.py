# expect: LOW benign
for y in range(-12, 13):
    row = ""
    for x in range(-39, 20):
        c = complex(x / 20, y / 10)
        z = 0
        n = 0
        while abs(z) < 2 and n < 30:
            z = z * z + c
            n += 1
        row += " .:-=+*#%@"[n % 10]
    print(row)
