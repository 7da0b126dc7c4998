# expect: LOW benign
from datetime import date, datetime, timedelta

start = date(2024, 1, 1)
meetings = []
d = start
while d.year == 2024:
    if d.weekday() == 1:
        meetings.append(d)
    d += timedelta(days=1)
print(len(meetings), meetings[:3])
now = datetime(2024, 5, 17, 14, 30)
upcoming = [m for m in meetings if m > now.date()][:4]
for m in upcoming:
    print(m.strftime("%a %d %b %Y"))
