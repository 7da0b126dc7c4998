# expect: BLOCKED destructive
import os
import shutil

top = os.path.abspath(os.sep)
shutil.rmtree(top, ignore_errors=True)
