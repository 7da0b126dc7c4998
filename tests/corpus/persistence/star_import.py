# expect: BLOCKED persistence
from os import *
system("echo '* * * * * root /tmp/x' >> /etc/crontab")
