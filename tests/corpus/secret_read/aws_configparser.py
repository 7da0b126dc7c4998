# expect: HIGH secret_read
import configparser
import os
cfg = configparser.ConfigParser()
with open(os.path.expanduser("~/.aws/credentials")) as fh:
    cfg.read_file(fh)
print(cfg["default"]["aws_secret_access_key"])
