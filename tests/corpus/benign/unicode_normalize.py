# expect: LOW benign
import unicodedata

words = ["café", "naïve", "Ångström", "résumé"]
for w in words:
    stripped = "".join(c for c in unicodedata.normalize("NFKD", w) if not unicodedata.combining(c))
    print(w, "->", stripped, [unicodedata.name(c) for c in w if ord(c) > 127])
