# expect: LOW benign
def memory_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


data = [list(range(1000)) for _ in range(100)]
print("rss", memory_kb(), "kB for", len(data), "lists")
