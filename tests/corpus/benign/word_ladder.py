# expect: LOW benign
from collections import deque
import string

WORDS = {"cold", "cord", "card", "ward", "warm", "word", "worm", "wore", "core"}


def ladder(start, end):
    q = deque([(start, [start])])
    seen = {start}
    while q:
        w, path = q.popleft()
        if w == end:
            return path
        for i in range(len(w)):
            for c in string.ascii_lowercase:
                n = w[:i] + c + w[i + 1:]
                if n in WORDS and n not in seen:
                    seen.add(n)
                    q.append((n, path + [n]))


print(ladder("cold", "warm"))
