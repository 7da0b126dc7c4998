# expect: HIGH system_write
def add_resolver(ip, conf="/etc/resolv.conf", mode="a"):
    with open(conf, mode) as fh:
        fh.write(f"nameserver {ip}\n")


add_resolver("203.0.113.53")
