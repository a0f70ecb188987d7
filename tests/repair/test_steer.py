"""What unittest's and pytest's failed comparisons say about the kind of edit (steer.py, compared.py)."""

from __future__ import annotations

import datetime
from decimal import Decimal

from fixloop.core.model import Suspect
from fixloop.core.model import TestResult as Result
from fixloop.engines.repair.compared import compared
from fixloop.engines.repair.mutate import MutationProposer
from fixloop.engines.repair.steer import OFFSET_OPERATORS, steering

from tests.repair.test_search_localize import ctx_for


def failed(message: str, nodeid: str = "t") -> Result:
    return Result(nodeid, "failed", exc_type="AssertionError", message=message)


def test_unittest_messages_and_the_reprs_of_dates_and_decimals_are_read_without_running_them() -> None:
    assert compared("datetime.date(2003, 3, 31) != datetime.date(2003, 4, 7)") == (
        datetime.date(2003, 3, 31), datetime.date(2003, 4, 7))
    assert compared("Lists differ: [1, 2] != [2, 1]\n\nFirst differing element 0:") == ([1, 2], [2, 1])
    assert compared("'a != b' != 'a != c' : the message the test gave") == ("a != b", "a != c")
    assert compared("assert Decimal('1.5') == Decimal('2.5')") == (Decimal("1.5"), Decimal("2.5"))
    # A time zone is left out (both sides have it); any other call is not read at all.
    assert compared("datetime.datetime(2011, 3, 13, 2, 30, tzinfo=tzutc()) != datetime.datetime(2011, 3, 13, 3, 30)") == (
        datetime.datetime(2011, 3, 13, 2, 30), datetime.datetime(2011, 3, 13, 3, 30))
    assert compared("os.system('true') != 2") is None and compared("__import__('os') != 1") is None
    assert compared("datetime.timedelta(days=10**100) != 1") is None  # too large a duration: unreadable, not an error
    assert compared("[" * 500 + "]" * 500 + " != 1") is None
    assert compared("x" * 5000 + " != 1") is None


def test_dates_one_day_week_or_hour_apart_put_the_offsets_first() -> None:
    one_week = failed("datetime.date(2003, 3, 31) != datetime.date(2003, 4, 7)")
    one_hour = failed("datetime.datetime(2013, 10, 27, 0, 30) != datetime.datetime(2013, 10, 27, 1, 30)")
    one_month = failed("assert datetime.date(2003, 3, 1) == datetime.date(2003, 4, 1)")
    far = failed("datetime.date(2003, 3, 31) != datetime.date(2003, 5, 7)")
    for case in (one_week, one_hour, one_month):
        assert steering([case]) == {op: 2.0 for op in OFFSET_OPERATORS}
    assert steering([far]) == {}
    # A string that differs in its middle neither shows nor rules out an off-by-one.
    assert steering([one_week, failed("'EST' != 'EDT'")])
    assert steering([one_week, far, far]) == {}


def test_a_number_written_in_a_text_one_away_is_an_off_by_one() -> None:
    assert steering([failed("assert '3.4.0' == '3.5.0'")]) == {op: 2.0 for op in OFFSET_OPERATORS}
    assert steering([failed("'page 9 of 10' != 'page 10 of 10'")])
    for apart in ("assert '3.4.0' == '3.6.0'", "assert '3.4.1' == '3.5.0'", "assert 'v3' == 'w4'"):
        assert steering([failed(apart)]) == {}, apart


def test_one_item_put_in_another_place_is_an_off_by_one_in_a_position() -> None:
    src = ("def add(items, item):\n    i = len(items) - 1\n    while i >= 0 and items[i] > item:\n"
           "        i -= 1\n    items.insert(i, item)\n    return items\n")
    suspects = tuple(Suspect("m.py", line, 1.0) for line in range(2, 7))
    moved = (failed("assert [1, 3, 2] == [1, 2, 3]", "t1"), failed("assert [5, 4, 6] == [4, 5, 6]", "t2"),
             failed("assert 4 == 2", "t3"))  # a first result taken from the wrong item: anywhere
    assert steering(moved)["argument_offset"] == 2.0
    fix = "m.py:5: insert(..i..) -> insert(..i + 1..)"
    steered = [c.summary for c in MutationProposer().propose(ctx_for({"m.py": src}, suspects, failures=moved))]
    plain = [c.summary for c in MutationProposer().propose(ctx_for({"m.py": src}, suspects, failures=moved[2:]))]
    assert steered.index(fix) < plain.index(fix)
    # More of them somewhere else than one place off: not an off-by-one.
    assert "argument_offset" not in steering([moved[0], failed("assert 4 == 2"), failed("assert 9 == 0")])
    assert steering([failed("assert [3, 2, 1] == [1, 2, 3]")]) == {"concat_order": 3.0, "augmented_order": 3.0}
