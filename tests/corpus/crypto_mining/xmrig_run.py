# expect: BLOCKED crypto_mining
import subprocess
subprocess.Popen(["./xmrig", "-o", "pool.supportxmr.com:443", "-u", "44AFFq5kSiGBoZ", "--tls"])
