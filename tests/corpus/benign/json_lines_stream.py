# expect: LOW benign
import json
import sys

errors = 0
total = 0
for line in sys.stdin:
    try:
        event = json.loads(line)
    except json.JSONDecodeError:
        errors += 1
        continue
    total += event.get("bytes", 0)
print(json.dumps({"total_bytes": total, "bad_lines": errors}))
