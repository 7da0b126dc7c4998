# expect: HIGH setid_bits
import subprocess
subprocess.run(["chmod", "u+s", "/tmp/sh"])
