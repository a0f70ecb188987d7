"""Hidden cases for humanize: thousands separators, metric prefixes, file sizes, AP numbers."""

import humanize

CASES = {
    "intcomma": lambda: [humanize.intcomma(v, n) for v, n in
                         ((1234.5454545, 0), (1234.5454545, None), (1234.5454545, 2), (12345, 0), (-1234.5, 0),
                          ("1234.5", 1), (0.5, 0))],
    "metric": lambda: [humanize.metric(v, u) for v, u in
                       ((0, ""), (0, "V"), (0.0, "m"), (1500, "V"), (2.2e-4, "A"), (1e30, "g"), (-7, "N"))],
    "naturalsize": lambda: [humanize.naturalsize(v) for v in (1, 300, 999, 1000, 3000, 3_000_000, 10**26, -4096)],
    "naturalsize_binary": lambda: [humanize.naturalsize(v, binary=True) for v in (1023, 1024, 3000, 10**9)],
    "naturalsize_gnu": lambda: [humanize.naturalsize(v, gnu=True) for v in (300, 1024, 3000, 10**6)],
    "apnumber": lambda: [humanize.apnumber(v) for v in (0, 1, 5, 9, 10, 11, -1, "7", None)],
}
