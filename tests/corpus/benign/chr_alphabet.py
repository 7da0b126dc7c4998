# expect: LOW benign
alphabet = "".join(chr(c) for c in range(ord("a"), ord("z") + 1))
print(alphabet)
codes = [72, 101, 108, 108, 111]
print("".join(map(chr, codes)))
table = {c: alphabet.index(c) for c in alphabet}
print(table["q"])
