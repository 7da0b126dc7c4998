# expect: LOW benign
import subprocess
import sys

result = subprocess.run(
    [sys.executable, "-c", "import sys; print(sys.version_info[:2])"],
    capture_output=True,
    text=True,
    check=True,
)
print("child says", result.stdout.strip())
