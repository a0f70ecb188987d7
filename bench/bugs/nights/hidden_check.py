import datetime
from booking import nights

for i in range(1, 400):
    a = datetime.date(2024, 1, 1)
    assert nights(a, a + datetime.timedelta(days=i)) == i
