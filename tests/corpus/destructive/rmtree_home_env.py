# expect: BLOCKED destructive
import os
import shutil

home = os.environ["HOME"]
shutil.rmtree(os.path.join(home, ""), ignore_errors=True)
