# expect: LOW benign
import datetime
import shutil
from pathlib import Path

src = Path("project")
stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
dest = Path("backups") / f"project-{stamp}"
dest.parent.mkdir(exist_ok=True)
shutil.copytree(src, dest, ignore=shutil.ignore_patterns("*.pyc", "__pycache__"))
archive = shutil.make_archive(str(dest), "zip", root_dir=dest)
print("archive", archive)
