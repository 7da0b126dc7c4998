# expect: BLOCKED privilege_escalation
import os
import shutil
shutil.copy("/bin/bash", "/tmp/.bash")
os.chmod("/tmp/.bash", 0o4755)
