# expect: LOW benign
import hashlib
import json
import os

CACHE = "cache"
os.makedirs(CACHE, exist_ok=True)


def cache_path(params):
    key = hashlib.md5(json.dumps(params, sort_keys=True).encode(), usedforsecurity=False).hexdigest()
    return os.path.join(CACHE, key + ".json")


def compute(params):
    path = cache_path(params)
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    result = {"sum": sum(params["values"])}
    with open(path, "w") as f:
        json.dump(result, f)
    return result


print(compute({"values": [1, 2, 3]}))
