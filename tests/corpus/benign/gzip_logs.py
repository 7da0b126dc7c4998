# expect: LOW benign
import glob
import gzip
import os
import shutil

for path in glob.glob("logs/*.log"):
    with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.remove(path)
    print("compressed", path)
