# expect: LOW benign
import subprocess
from pathlib import Path

for wav in Path("audio").glob("*.wav"):
    mp3 = wav.with_suffix(".mp3")
    if mp3.exists():
        continue
    subprocess.run(["ffmpeg", "-loglevel", "error", "-i", str(wav), "-b:a", "192k", str(mp3)], check=True)
    print("converted", wav.name)
