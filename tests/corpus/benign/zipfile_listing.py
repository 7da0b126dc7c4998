# expect: LOW benign
import zipfile

with zipfile.ZipFile("bundle.zip") as z:
    for info in z.infolist():
        print(f"{info.filename:40} {info.file_size:>10} {info.compress_size:>10}")
    if "README.txt" in z.namelist():
        print(z.read("README.txt").decode()[:200])
