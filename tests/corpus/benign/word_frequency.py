# expect: LOW benign
import re
import sys
from collections import Counter

path = sys.argv[1] if len(sys.argv) > 1 else "book.txt"
with open(path, encoding="utf-8") as f:
    text = f.read().lower()
words = re.findall(r"[a-z']+", text)
stop = {"the", "and", "a", "of", "to", "in", "is", "it"}
counts = Counter(w for w in words if w not in stop)
for word, n in counts.most_common(25):
    print(f"{word:15} {n}")
