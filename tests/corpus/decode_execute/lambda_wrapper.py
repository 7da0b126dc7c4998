# expect: BLOCKED decode_execute
import base64
run = lambda s: exec(base64.b64decode(s))
run("aW1wb3J0IG9zCm9zLnN5c3RlbSgidW5hbWUgLWEiKQ==")
