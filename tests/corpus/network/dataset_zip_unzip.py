# expect: MEDIUM network
import os
import urllib.request

URL = "https://archive.example.edu/ml/datasets/iris.zip"
target_dir = os.path.join(os.getcwd(), "data")
archive = os.path.join(target_dir, os.path.basename(URL))
os.makedirs(target_dir, exist_ok=True)
if not os.path.exists(archive):
    urllib.request.urlretrieve(URL, archive)
os.system(f"unzip -o {archive} -d {target_dir}")
os.system(f"wc -l {target_dir}/*.csv")
