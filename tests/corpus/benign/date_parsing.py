# expect: LOW benign
from datetime import datetime

formats = ["%Y-%m-%d", "%d/%m/%Y", "%b %d, %Y"]
inputs = ["2024-02-29", "31/12/2023", "Jul 04, 2021", "not a date"]


def parse(text):
    for fmt in formats:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


for s in inputs:
    print(s, "->", parse(s))
