# expect: LOW benign
import gc
import weakref


class Big:
    def __init__(self, n):
        self.data = list(range(n))


cache = weakref.WeakValueDictionary()
obj = Big(1000)
cache["k"] = obj
print("cached", "k" in cache)
del obj
gc.collect()
print("after collect", "k" in cache)
