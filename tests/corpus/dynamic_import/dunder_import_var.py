# expect: MEDIUM dynamic_import
import json
with open("config.json") as f:
    cfg = json.load(f)
backend = __import__(cfg["backend"])
print(backend)
