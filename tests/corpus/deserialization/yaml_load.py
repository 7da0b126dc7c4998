# expect: MEDIUM deserialization
import yaml
with open("settings.yml") as f:
    settings = yaml.load(f)
print(settings)
