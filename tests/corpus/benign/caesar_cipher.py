# expect: LOW benign
def shift(text, k):
    out = []
    for ch in text:
        if ch.isalpha():
            base = ord("A") if ch.isupper() else ord("a")
            out.append(chr((ord(ch) - base + k) % 26 + base))
        else:
            out.append(ch)
    return "".join(out)


secret = shift("Meet me at noon", 3)
print(secret)
print(shift(secret, -3))
