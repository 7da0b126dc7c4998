# expect: LOW benign
import importlib

for name in ("json", "csv", "statistics"):
    mod = importlib.import_module(name)
    print(name, mod.__name__, len(dir(mod)))
