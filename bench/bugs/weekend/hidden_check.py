import datetime
from schedule import is_weekend, working_days

d = datetime.date(2024, 1, 1)
for i in range(400):
    day = d + datetime.timedelta(days=i)
    assert is_weekend(day) == (day.strftime("%a") in ("Sat", "Sun"))
assert working_days(datetime.date(2024, 1, 1), datetime.date(2024, 2, 1)) == 23
