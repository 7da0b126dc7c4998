# expect: LOW benign
import os

os.makedirs("/tmp/scratch", exist_ok=True)
for i in range(5):
    with open(f"/tmp/scratch/chunk_{i}.txt", "w") as f:
        f.write("data " * i)
sizes = {name: os.path.getsize(os.path.join("/tmp/scratch", name)) for name in os.listdir("/tmp/scratch")}
print(sizes)
for name in sizes:
    os.remove(os.path.join("/tmp/scratch", name))
os.rmdir("/tmp/scratch")
