# expect: LOW benign
import os
import shutil
import tempfile

workdir = tempfile.mkdtemp(prefix="job-")
try:
    for i in range(3):
        with open(os.path.join(workdir, f"part{i}.txt"), "w") as f:
            f.write(str(i) * 10)
    merged = os.path.join(workdir, "merged.txt")
    with open(merged, "w") as out:
        for i in range(3):
            with open(os.path.join(workdir, f"part{i}.txt")) as f:
                out.write(f.read())
    print(open(merged).read())
finally:
    shutil.rmtree(workdir)
