# expect: LOW benign
import collections, re
hits = collections.Counter()
with open("/var/log/nginx/access.log") as fh:
    for line in fh:
        m = re.search(r'"GET (\S+)', line)
        if m:
            hits[m.group(1)] += 1
print(hits.most_common(10), open("/etc/timezone").read())
