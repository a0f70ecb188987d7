import datetime

from stays import days_between, nights, price

d0 = datetime.date(2023, 12, 20)
for i in range(0, 90, 3):
    for j in range(-5, 40, 2):
        a, b = d0 + datetime.timedelta(days=i), d0 + datetime.timedelta(days=i + j)
        assert days_between(a, b) == j, (a, b)
        assert nights(a, b) == max(j, 0)
        assert price(a, b, 10) == max(j, 0) * 10
