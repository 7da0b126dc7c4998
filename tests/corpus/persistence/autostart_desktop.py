# expect: BLOCKED persistence
import os
path = os.path.expanduser("~/.config/autostart/updater.desktop")
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "w") as f:
    f.write("[Desktop Entry]\nType=Application\nExec=/tmp/updater\n")
