from fixloop.core.patch import TextEdit, apply_edits
from fixloop.kit.shapes import (
    changed_statements, code_of, shape_similarity, statement_shape, statement_tokens, statements, transfer,
)

FIXED_BEFORE = "def f(q):\n    if q > LIMIT:\n        return 1\n    for i in range(n):\n        pass\n    return not ok\n"
FIXED_AFTER = "def f(q):\n    if q >= LIMIT:\n        return 1\n    for i in range(n + 1):\n        pass\n    return ok\n"


def _replay(edit, source: str, line: int) -> str | None:
    edits = transfer(edit, statement_tokens(source, line))
    return apply_edits(source, [TextEdit(*e) for e in edits]).splitlines()[line - 1] if edits else None


def test_shape_abstracts_names_and_literals_but_keeps_operators_and_builtins() -> None:
    src = "def g(items):\n    if len(items) > MAX_ITEMS and items[0] == 'x':  # note\n        return 3.5\n"
    assert statement_shape(src, 2) == "if len ( ID ) > ID and ID [ NUM ] == STR :"
    assert statement_shape(src, 3) == "return NUM"
    assert statement_shape(src, 1) == "def ID ( ID ) :"  # the header only, not the body


def test_same_bug_class_in_different_code_has_one_shape() -> None:
    assert statement_shape("if quantity > BULK:\n    pass\n", 1) == statement_shape("if age > SENIOR_AGE:\n    x = 1\n", 1)


def test_changed_statements_pairs_each_fixed_statement() -> None:
    edits = changed_statements(FIXED_BEFORE, FIXED_AFTER)
    assert [(code_of(e.before), code_of(e.after)) for e in edits] == [
        ("if q > LIMIT:", "if q >= LIMIT:"), ("for i in range(n):", "for i in range(n + 1):"),
        ("return not ok", "return ok"),
    ]
    assert edits[0].fault_shape == "if ID > ID :"


def test_transfer_replays_the_edit_with_this_codes_names() -> None:
    swap, nudge, negation = changed_statements(FIXED_BEFORE, FIXED_AFTER)
    target = "class A:\n    def g(self, age):\n        if age > self.max_age:\n            return 2\n" \
             "        for j in range(count):\n            pass\n        return not flag\n"
    assert _replay(swap, target, 3) == "        if age >= self.max_age:"
    assert _replay(nudge, target, 5) == "        for j in range(count + 1):"
    assert _replay(negation, target, 7) == "        return flag"


def test_transfer_refuses_an_unrelated_statement() -> None:
    swap = changed_statements(FIXED_BEFORE, FIXED_AFTER)[0]
    assert _replay(swap, "total = price * count\n", 1) is None
    assert shape_similarity(swap.before, statement_tokens("total = price * count\n", 1)) < 0.6


def test_statements_lists_every_header_once() -> None:
    lines = [line for line, _ in statements(FIXED_BEFORE)]
    assert lines == [1, 2, 3, 4, 5, 6]


def test_a_comprehension_is_part_of_its_statement_and_replays() -> None:
    before = 'def total(order):\n    return sum(line["price"] for line in order)\n'
    (edit,) = changed_statements(before, before.replace('"price"', '"net"'))
    target = 'def pay(staff):\n    paid = [p for p in staff if p["on"]]\n    return sum(who["price"] for who in paid)\n'
    assert [line for line, _ in statements(target)] == [1, 2, 3]
    assert statement_shape(target, 3) == "return sum ( ID [ STR ] for ID in ID )"
    assert _replay(edit, target, 3) == '    return sum(who["net"] for who in paid)'


def test_an_exchange_replays_with_the_fixed_statements_spacing() -> None:
    """Two arguments exchanged: difflib sees a move (an insertion here, a deletion there), and each
    piece kept the spacing of its old neighbours (`seat_label(row,seat)`) until the change was one span."""
    before = "def shelf(item, stock):\n    return label(stock, item)\n"
    (edit,) = changed_statements(before, before.replace("label(stock, item)", "label(item, stock)"))
    target = "def line(show, seat, row):\n    place = seat_label(seat, row)\n"
    assert _replay(edit, target, 2) == "    place = seat_label(row, seat)"
