# expect: LOW benign
import re
import sys


def slug(text):
    return re.sub(r"[^a-z0-9-]", "", text.lower().replace(" ", "-"))


def toc(lines):
    out = []
    for line in lines:
        m = re.match(r"^(#{1,6})\s+(.*)", line)
        if m:
            level = len(m.group(1))
            title = m.group(2).strip()
            out.append("  " * (level - 1) + f"- [{title}](#{slug(title)})")
    return out


with open(sys.argv[1] if len(sys.argv) > 1 else "README.md") as f:
    print("\n".join(toc(f)))
