# expect: LOW benign
from email.utils import formatdate, parsedate_to_datetime

stamp = formatdate(timeval=1700000000, usegmt=True)
print(stamp)
print(parsedate_to_datetime(stamp).isoformat())
