# expect: MEDIUM network
import csv
import io
import urllib.request
text = urllib.request.urlopen("https://example.com/data.csv").read().decode()
rows = list(csv.reader(io.StringIO(text)))
print(len(rows))
