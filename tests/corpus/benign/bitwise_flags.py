# expect: LOW benign
from enum import IntFlag


class Perm(IntFlag):
    R = 4
    W = 2
    X = 1


mode = Perm.R | Perm.W
print(mode, Perm.X in mode)
for octal in (0o644, 0o755, 0o600):
    print(oct(octal), "".join("rwx"[i] if octal >> (8 - i - 3 * (i // 3) * 0) & 1 else "-" for i in range(3)))
