# expect: HIGH set_id
from os import setuid as become
become(0)
