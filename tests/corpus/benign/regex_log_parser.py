# expect: LOW benign
import re
from collections import Counter

LINE = re.compile(r'(?P<ip>\S+) \S+ \S+ \[(?P<ts>[^\]]+)\] "(?P<method>\w+) (?P<path>\S+)[^"]*" (?P<status>\d{3}) (?P<size>\d+|-)')

statuses = Counter()
paths = Counter()
with open("access.log") as f:
    for line in f:
        m = LINE.match(line)
        if not m:
            continue
        statuses[m["status"]] += 1
        paths[m["path"]] += 1
print(statuses.most_common())
print(paths.most_common(10))
