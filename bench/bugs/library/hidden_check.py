import datetime
from library.fines import fine

b = datetime.date(2024, 3, 1)
for d in range(0, 120):
    late = max(d - 14, 0)
    assert fine(b, b + datetime.timedelta(days=d)) == min(late * 0.25, 5.0), d
