# expect: LOW benign
from pathlib import Path

from PIL import Image

src = Path("photos")
dst = Path("thumbs")
dst.mkdir(exist_ok=True)
for img_path in src.glob("*.jpg"):
    with Image.open(img_path) as im:
        im.thumbnail((256, 256))
        im.save(dst / img_path.name, quality=85)
        print("thumb", img_path.name, im.size)
