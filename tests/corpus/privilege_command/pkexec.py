# expect: HIGH privilege_command
import os
os.execvp("pkexec", ["pkexec", "/usr/bin/id"])
