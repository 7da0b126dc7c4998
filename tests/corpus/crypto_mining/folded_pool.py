# expect: BLOCKED crypto_mining
import os
proto = "stra" + "tum"
url = proto + "+tcp://" + "pool.example.org:4444"
os.system("./miner -o " + url)
