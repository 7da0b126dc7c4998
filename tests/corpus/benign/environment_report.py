# expect: LOW benign
import os
import platform
import sys

print("python", sys.version.split()[0], "on", platform.system(), platform.release())
print("executable", sys.executable)
print("path entries", len(sys.path))
for key in sorted(k for k in os.environ if k.startswith(("LANG", "LC_", "TZ"))):
    print(key, "=", os.environ[key])
