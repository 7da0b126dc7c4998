# expect: LOW benign
"""Builds two docs targets in parallel from a small shell helper."""
import subprocess

script = """
render() { echo "rendering $1"; sleep 0.1 & }
render intro
render guide
wait
"""
subprocess.run(["bash", "-c", script], check=True)
