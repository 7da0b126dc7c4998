# expect: LOW benign
def parse_os_release(path="/etc/os-release"):
    info = {}
    with open(path) as fh:
        for line in fh:
            key, _, value = line.strip().partition("=")
            if key:
                info[key] = value.strip('"')
    return info


with open("/etc/hosts") as fh:
    names = [l.split()[1] for l in fh if l.strip() and not l.startswith("#") and len(l.split()) > 1]
print(parse_os_release().get("PRETTY_NAME", "unknown"), len(names), "host names")
