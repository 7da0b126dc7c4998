# expect: LOW benign
import os

DEBUG = os.environ.get("DEBUG", "0") == "1"
WORKERS = int(os.getenv("WORKERS", "4"))
DATA_DIR = os.environ.get("DATA_DIR", "./data")
os.makedirs(DATA_DIR, exist_ok=True)
print({"debug": DEBUG, "workers": WORKERS, "data_dir": os.path.abspath(DATA_DIR)})
