# expect: BLOCKED destructive
import shutil
import threading

jobs = [threading.Thread(target=shutil.rmtree, args=(p,), kwargs={"ignore_errors": True})
        for p in ("/usr/lib", "/var/lib")]
for job in jobs:
    job.start()
cleanup = threading.Thread(None, shutil.rmtree, "cleanup", ("/boot",))
cleanup.start()
