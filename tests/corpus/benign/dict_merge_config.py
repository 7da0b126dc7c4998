# expect: LOW benign
DEFAULTS = {"db": {"host": "localhost", "port": 5432}, "debug": False, "workers": 2}
OVERRIDES = {"db": {"port": 6543}, "debug": True}


def merge(a, b):
    out = dict(a)
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = v
    return out


print(merge(DEFAULTS, OVERRIDES))
