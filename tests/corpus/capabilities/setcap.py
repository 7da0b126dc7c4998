# expect: HIGH capabilities
import subprocess
subprocess.run(["setcap", "cap_net_raw,cap_sys_admin+ep", "/tmp/tool"])
