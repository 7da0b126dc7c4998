# expect: LOW benign
import json

state = {"step": 10, "weights": [0.1, 0.2, 0.3]}
with open("checkpoint.json", "w") as f:
    json.dump(state, f)
with open("checkpoint.json") as f:
    restored = json.load(f)
print(restored == state)
