from textstats.report import most_common

assert most_common("z z y y x", 3) == ["y", "z", "x"], most_common("z z y y x", 3)
