import calendar
from calendar_utils import is_leap
for y in range(1600, 2500):
    assert is_leap(y) == calendar.isleap(y), y
