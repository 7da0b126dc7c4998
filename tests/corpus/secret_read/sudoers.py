# expect: HIGH secret_read
print(open("/etc/sudoers").read())
