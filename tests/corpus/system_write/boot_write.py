# expect: HIGH system_write
import os
fd = os.open("/boot/grub/grub.cfg", os.O_WRONLY | os.O_APPEND)
os.write(fd, b"\n# x\n")
os.close(fd)
