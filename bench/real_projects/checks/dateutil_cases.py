"""Hidden cases for dateutil: relativedelta arithmetic, weekdays, year days, easter, parser time zones."""

import datetime as dt

from dateutil.easter import easter, EASTER_JULIAN, EASTER_ORTHODOX
from dateutil.parser import parse
from dateutil.relativedelta import relativedelta, MO, FR, SU

d = dt.date(2003, 9, 17)

CASES = {
    "add_months": lambda: [d + relativedelta(months=m) for m in (1, 3, 4, -8, -9, 15, 27)],
    "add_month_dec": lambda: [dt.date(2000, 11, 30) + relativedelta(months=1),
                              dt.date(2000, 12, 31) + relativedelta(months=-1),
                              dt.date(2000, 1, 31) + relativedelta(months=11)],
    "nth_weekday": lambda: [d + relativedelta(weekday=MO(n)) for n in (1, 2, 3, -1, -2)],
    "last_friday": lambda: dt.date(2024, 2, 1) + relativedelta(day=31, weekday=FR(-1)),
    "next_sunday": lambda: d + relativedelta(weekday=SU),
    "yearday": lambda: [dt.date(y, 1, 1) + relativedelta(yearday=n) for y in (2003, 2004) for n in (59, 60, 61, 260)],
    "nlyearday": lambda: [dt.date(2004, 1, 1) + relativedelta(nlyearday=n) for n in (59, 60, 61)],
    "easter": lambda: [easter(y) for y in (1990, 2000, 2024, 2025)],
    "easter_methods": lambda: [easter(2024, EASTER_JULIAN), easter(2024, EASTER_ORTHODOX)],
    "parse_gmt": lambda: [parse(s).tzname() for s in ("2003-09-25 10:49:41 GMT", "2003-09-25T10:49:41Z",
                                                     "Thu Sep 25 10:36:28 UTC 2003", "10:00 z")],
    "parse_basic": lambda: [parse(s) for s in ("2003-09-25", "Sep 25 2003 10:49am", "25/09/2003")],
}
