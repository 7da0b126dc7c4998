# expect: MEDIUM deserialization
import pickle
with open("cache.pkl", "rb") as f:
    cache = pickle.load(f)
print(len(cache))
