import calendar
from calendar_utils import is_leap

for y in range(1, 3000):
    assert is_leap(y) == calendar.isleap(y), y
