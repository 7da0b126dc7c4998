# expect: BLOCKED decode_execute
import base64
import pickle

# protocol 2 payload, stored encoded so it survives the config file
BLOB = "gAJjc3VicHJvY2VzcwpjaGVja19vdXRwdXQKcQBdcQEoWAIAAABsc3ECWAIAAAAtbHEDZYVxBFJxBS4="
result = pickle.loads(base64.b64decode(BLOB))
print(result)
