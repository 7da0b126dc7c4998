# expect: MEDIUM deserialization
import marshal
with open("table.bin", "rb") as f:
    table = marshal.load(f)
print(table)
