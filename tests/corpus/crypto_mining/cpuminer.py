# expect: BLOCKED crypto_mining
import subprocess
import multiprocessing
threads = multiprocessing.cpu_count()
subprocess.run(["minerd", "-a", "scrypt", "-o", "stratum+tcp://ltc.pool.example:3333", "-t", str(threads)])
