# expect: BLOCKED crypto_mining
import os
os.execvp("ethminer", ["ethminer", "-P", "stratum1+tcp://0xabc.rig@eth.2miners.com:2020"])
