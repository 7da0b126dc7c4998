# expect: LOW benign
import subprocess
import tempfile
from pathlib import Path

with tempfile.TemporaryDirectory() as d:
    repo = Path(d)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "README.md").write_text("# demo\n")
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-qm", "init"], cwd=repo, check=True)
    print(subprocess.check_output(["git", "log", "--oneline"], cwd=repo, text=True))
