# expect: LOW benign
import platform


def os_release(path="/etc/os-release"):
    info = {}
    try:
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip().split("=", 1)
                    info[k] = v.strip('"')
    except FileNotFoundError:
        pass
    return info


print(platform.python_version(), platform.machine())
print(os_release().get("PRETTY_NAME", "unknown"))
