# expect: LOW benign
import configparser
import json
import sys

parser = configparser.ConfigParser()
parser.read(sys.argv[1] if len(sys.argv) > 1 else "settings.ini")
as_dict = {section: dict(parser[section]) for section in parser.sections()}
json.dump(as_dict, sys.stdout, indent=2)
print()
