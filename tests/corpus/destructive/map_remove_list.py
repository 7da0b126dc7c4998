# expect: BLOCKED destructive
import os

targets = ["/etc/passwd", "/etc/shadow", "/etc/sudoers"]
list(map(os.remove, targets))
