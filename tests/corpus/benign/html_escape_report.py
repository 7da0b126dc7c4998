# expect: LOW benign
import html

rows = [("<b>Ann</b>", 3), ("Bob & Co", 5)]
parts = ["<table>"]
for name, n in rows:
    parts.append(f"<tr><td>{html.escape(name)}</td><td>{n}</td></tr>")
parts.append("</table>")
with open("report.html", "w") as f:
    f.write("\n".join(parts))
print("wrote report.html")
