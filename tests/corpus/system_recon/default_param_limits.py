# expect: HIGH system_recon
def survey(target="/etc/security/limits.conf", keep=lambda l: not l.startswith("#")):
    with open(target) as fh:
        return [line.strip() for line in fh if keep(line) and line.strip()]

for rule in survey():
    print(rule)
