# expect: LOW benign
import difflib

a = "the quick brown fox jumps over the lazy dog".split()
b = "the quick red fox jumped over the lazy dogs".split()
for line in difflib.unified_diff(a, b, lineterm=""):
    print(line)
print(difflib.SequenceMatcher(None, " ".join(a), " ".join(b)).ratio())
print(difflib.get_close_matches("appel", ["ape", "apple", "peach", "puppy"]))
