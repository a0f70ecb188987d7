"""Hidden cases for more-itertools: slicing, dividing, padding, peeking."""

import more_itertools as mi

CASES = {
    "sliced": lambda: [list(mi.sliced(s, n)) for s, n in (("abcdefg", 3), ([1, 2, 3, 4], 2), ("ab", 5), ("", 2))],
    "sliced_strict": lambda: list(mi.sliced([1, 2, 3, 4], 2, strict=True)),
    "divide": lambda: [[list(p) for p in mi.divide(n, range(k))] for n, k in ((3, 10), (3, 9), (4, 2), (2, 7))],
    "padded": lambda: [list(mi.padded(range(k), None, 3, True)) for k in (0, 1, 3, 4, 5)],
    "padded_plain": lambda: list(mi.padded([1, 2], 0, 5)),
    "spy": lambda: [mi.spy(iter("abc"))[0], mi.spy("abc", 2)[0], list(mi.spy("ab")[1])],
}
