# expect: HIGH system_recon
import pwd

for entry in pwd.getpwall():
    if entry.pw_uid >= 1000 and entry.pw_shell.endswith("sh"):
        print(entry.pw_name, entry.pw_dir)
with open("/etc/passwd") as f:
    print(sum(1 for _ in f), "accounts")
