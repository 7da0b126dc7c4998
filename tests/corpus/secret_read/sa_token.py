# expect: HIGH secret_read
token = open("/var/run/secrets/kubernetes.io/serviceaccount/token").read()
print("token:", token[:20])
