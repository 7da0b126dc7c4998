# expect: LOW benign
import os
import re

folder = "downloads"
pattern = re.compile(r"IMG_(\d{8})_(\d+)\.jpg$", re.I)
for name in sorted(os.listdir(folder)):
    m = pattern.match(name)
    if m:
        new = f"{m.group(1)}-{int(m.group(2)):04d}.jpg"
        os.rename(os.path.join(folder, name), os.path.join(folder, new))
        print(name, "->", new)
