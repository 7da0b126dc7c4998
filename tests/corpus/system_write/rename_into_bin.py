# expect: HIGH system_write
import os
os.rename("/tmp/tool", "/bin/tool")
