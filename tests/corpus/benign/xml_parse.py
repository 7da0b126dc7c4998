# expect: LOW benign
import xml.etree.ElementTree as ET

doc = """<catalog>
  <book id="1"><title>Dune</title><price>9.99</price></book>
  <book id="2"><title>Emma</title><price>4.50</price></book>
</catalog>"""
root = ET.fromstring(doc)
for book in root.findall("book"):
    print(book.get("id"), book.findtext("title"), float(book.findtext("price")))
total = sum(float(b.findtext("price")) for b in root.iter("book"))
print("total", total)
