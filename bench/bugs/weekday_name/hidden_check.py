import datetime
from dates import weekday_name

d = datetime.date(2020, 1, 1)
for i in range(800):
    day = d + datetime.timedelta(days=i)
    assert weekday_name(day) == day.strftime("%A"), day
