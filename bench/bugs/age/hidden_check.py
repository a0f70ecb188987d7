import datetime
from people import age

b0 = datetime.date(1990, 1, 1)
for i in range(0, 800, 3):
    birth = b0 + datetime.timedelta(days=i)
    for j in range(0, 12000, 37):
        today = birth + datetime.timedelta(days=j)
        years = today.year - birth.year
        if (today.month, today.day) < (birth.month, birth.day):
            years -= 1
        assert age(birth, today) == years, (birth, today)
