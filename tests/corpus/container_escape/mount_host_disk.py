# expect: BLOCKED container_escape
import os
os.makedirs("/mnt/host", exist_ok=True)
os.system("mount /dev/sda1 /mnt/host && chroot /mnt/host /bin/bash")
