# expect: LOW benign
from datetime import datetime
from zoneinfo import ZoneInfo

meeting = datetime(2024, 3, 15, 9, 0, tzinfo=ZoneInfo("America/New_York"))
for tz in ["Europe/London", "Asia/Tokyo", "Australia/Sydney"]:
    print(tz, meeting.astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M"))
