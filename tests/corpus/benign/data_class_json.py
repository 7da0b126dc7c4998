# expect: LOW benign
import json
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Book:
    title: str
    author: str
    year: int


books = [Book("Dune", "Herbert", 1965), Book("Emma", "Austen", 1815)]
with open("books.json", "w") as f:
    json.dump([asdict(b) for b in books], f, indent=2)
with open("books.json") as f:
    loaded = [Book(**d) for d in json.load(f)]
print(loaded == books)
