# expect: LOW benign
import json

SCHEMA = {"name": str, "age": int, "emails": list}


def validate(record):
    errors = []
    for key, typ in SCHEMA.items():
        if key not in record:
            errors.append(f"missing {key}")
        elif not isinstance(record[key], typ):
            errors.append(f"{key} should be {typ.__name__}")
    return errors


with open("people.json") as f:
    people = json.load(f)
for i, p in enumerate(people):
    problems = validate(p)
    if problems:
        print(i, problems)
