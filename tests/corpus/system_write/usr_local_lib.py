# expect: HIGH system_write
import os
os.makedirs("/usr/local/lib/python3/dist-packages/sitecustomize", exist_ok=True)
