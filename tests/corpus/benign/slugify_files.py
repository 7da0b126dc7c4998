# expect: LOW benign
import re
import unicodedata
from pathlib import Path


def slugify(value):
    value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


for p in Path("posts").glob("*.md"):
    target = p.with_name(slugify(p.stem) + ".md")
    if target != p:
        p.rename(target)
        print(p.name, "->", target.name)
