# expect: LOW benign
def cores():
    with open("/proc/cpuinfo") as fh:
        return sum(1 for line in fh if line.startswith("processor"))


def rss_kib():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


print(f"{cores()} cores, {rss_kib()} KiB resident")
