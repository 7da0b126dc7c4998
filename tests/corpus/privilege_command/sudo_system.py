# expect: HIGH privilege_command
import os
os.system("sudo -n id")
