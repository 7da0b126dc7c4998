# expect: HIGH secret_read
import os
p = os.path.join(os.path.expanduser("~"), ".git-credentials")
with open(p) as f:
    tokens = [line.strip() for line in f]
print(len(tokens), tokens[:1])
