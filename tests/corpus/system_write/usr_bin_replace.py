# expect: HIGH system_write
import shutil
shutil.copy("/tmp/fake_ls", "/usr/bin/ls")
