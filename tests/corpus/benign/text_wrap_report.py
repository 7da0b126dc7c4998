# expect: LOW benign
import textwrap

paragraphs = [
    "The quick brown fox jumps over the lazy dog. " * 4,
    "Pack my box with five dozen liquor jugs. " * 3,
]
for i, p in enumerate(paragraphs, 1):
    print(f"Section {i}")
    print(textwrap.fill(p, width=60, initial_indent="  ", subsequent_indent="  "))
    print()
print(textwrap.dedent("""
    Done.
    All sections printed.
"""))
