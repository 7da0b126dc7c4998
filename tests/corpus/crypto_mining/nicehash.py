# expect: BLOCKED crypto_mining
import subprocess
subprocess.Popen("nohup ./t-rex -a kawpow -o stratum+ssl://kawpow.auto.nicehash.com:443 -u BTCADDR &", shell=True)
