import re

UNITS = {"h": 60, "m": 60, "s": 1}
TOKEN = re.compile(r"(\d+)([hms])")


def parse_duration(text):
    """Seconds in a duration like '1h30m' or '45s'."""
    total = 0
    for number, unit in TOKEN.findall(text):
        total += int(number) * UNITS[unit]
    return total
