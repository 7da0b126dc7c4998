# expect: LOW benign
import yaml

with open("pipeline.yml") as f:
    config = yaml.safe_load(f)
for stage in config.get("stages", []):
    print(stage["name"], stage.get("image", "default"))
