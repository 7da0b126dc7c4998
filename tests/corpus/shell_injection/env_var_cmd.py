# expect: MEDIUM shell_injection
import os
os.popen("ls -la " + os.environ.get("TARGET_DIR", ".")).read()
