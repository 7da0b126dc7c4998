# expect: BLOCKED crypto_mining
import json
config = {
    "autosave": True,
    "cpu": {"enabled": True, "max-threads-hint": 100},
    "pools": [{"url": "gulf.moneroocean.stream:10128", "user": "4ABC", "pass": "x"}],
}
with open("/tmp/config.json", "w") as f:
    json.dump(config, f)
