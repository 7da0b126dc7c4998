# expect: BLOCKED container_escape
import os
os.makedirs("/tmp/cgrp", exist_ok=True)
os.system("mount -t cgroup -o rdma cgroup /tmp/cgrp && mkdir /tmp/cgrp/x")
with open("/tmp/cgrp/x/notify_on_release", "w") as f:
    f.write("1")
host_path = open("/etc/mtab").read().split("upperdir=")[1].split(",")[0]
with open("/tmp/cgrp/release_agent", "w") as f:
    f.write(host_path + "/cmd")
