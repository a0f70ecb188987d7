"""Hidden cases for tabulate: padding, decimal alignment, column types, number parsing."""

from tabulate import tabulate, _afterpoint, _more_generic, _column_type

rows = [["spam", 41.9999, 1], ["eggs", "451.0", 10], ["x", 0.5, -100]]

CASES = {
    "simple": lambda: tabulate(rows, headers=["name", "qty", "n"]),
    "plain": lambda: tabulate([[1, 2.25], [300, 4.5]], tablefmt="plain"),
    "grid": lambda: tabulate([["a", 1.5], ["bb", 22.75]], tablefmt="grid"),
    "strings_as_numbers": lambda: tabulate([["1.0"], ["10.50"], ["100"]]),
    "numparse_off": lambda: tabulate([["1.0"], ["10.50"]], disable_numparse=True),
    "afterpoint": lambda: [_afterpoint(s) for s in ("123.45", "1001", "eggs", "123e45", "1.5e-3", "0.1", "1,000.25")],
    "generic": lambda: [_more_generic(a, b).__name__ for a, b in
                        ((int, float), (float, int), (bool, str), (str, int), (int, int), (type(None), int))],
    "column_type": lambda: [_column_type(c).__name__ for c in (["1", "2"], ["1", "2.5"], ["1", "x"], [None, "3"])],
    "floatfmt": lambda: tabulate([[1.23456, 2]], floatfmt=".2f"),
}
