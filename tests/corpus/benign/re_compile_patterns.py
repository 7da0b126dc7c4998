# expect: LOW benign
import re

patterns = {
    "email": re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+"),
    "phone": re.compile(r"\+?\d[\d\s-]{7,}\d"),
    "date": re.compile(r"\d{4}-\d{2}-\d{2}"),
}
text = "Contact ann@example.com or +1 555-123-4567 before 2024-06-30."
for name, pat in patterns.items():
    print(name, pat.findall(text))
