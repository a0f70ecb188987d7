"""Edit-form templates, pure: which fixes share a template (their edit's window, not their statement),
which do not, and where a template applies and where it must not."""

from __future__ import annotations

import pytest

from fixloop.core.model import Suspect, TestReport
from fixloop.core.ports import ProposalContext
from fixloop.kit.shapes import changed_statements
from fixloop.adapters.mined.edit import Window, generalise, window_of
from fixloop.adapters.mined.match import apply_in
from fixloop.adapters.mined.mine import patterns
from fixloop.adapters.mined.model import MinedTemplate, from_spec, problem
from fixloop.adapters.mined.proposer import MinedTemplateProposer


def _window(before: str, after: str) -> Window:
    [edit] = changed_statements(before, after)
    window = window_of(edit)
    assert window is not None, before
    return window


def _template(*pairs: tuple[str, str]) -> MinedTemplate:
    windows = [_window(b, a) for b, a in pairs]
    assert len({w.key for w in windows}) == 1, [w.key for w in windows]
    window = generalise(windows)
    before, after = patterns(window)
    template = MinedTemplate(before, after, within=window.within, span=window.span,
                             contexts=tuple(sorted({w.parent for w in windows})), status="approved")
    assert problem(template) == "", problem(template)
    return template


def _fixed(template: MinedTemplate, source: str, line: int) -> list[str]:
    """The source after each of the template's edits on `line`."""
    return [source[:m.start] + m.text + source[m.end:] for m in apply_in(template, source, line)]


LIMIT = (("def f(item):\n    return item.on_hand < REORDER_AT\n", "def f(item):\n    return item.on_hand <= REORDER_AT\n"),
         ("def f(average):\n    return average > PASS_MARK\n", "def f(average):\n    return average >= PASS_MARK\n"))
LOOP = (("for day in range(1, days):\n    pass\n", "for day in range(1, days + 1):\n    pass\n"),
        ("for w in range(1, weeks):\n    pass\n", "for w in range(1, weeks + 1):\n    pass\n"))
SWAP = (("item.on_hand = clamp(item.on_hand + delivered, capacity, 0)\n",
         "item.on_hand = clamp(item.on_hand + delivered, 0, capacity)\n"),
        ("grade = round(0.4 * cw + 0.6 * percent(exam_out_of, exam), 1)\n",
         "grade = round(0.4 * cw + 0.6 * percent(exam, exam_out_of), 1)\n"))
GUARD = (("if supplier.paused:\n    pass\n", "if supplier is None or supplier.paused:\n    pass\n"),
         ("if mentor.away:\n    pass\n", "if mentor is None or mentor.away:\n    pass\n"))


def test_a_strict_limit_becoming_non_strict_is_one_template_whatever_the_statement_and_direction() -> None:
    template = _template(*LIMIT)
    assert (template.before_shape, template.after_shape) == ("_1 <|> CONST1", "_1 <=|>= CONST1")
    code = "def g(rider):\n    if rider.age > SENIOR_AGE:\n        pass\n"
    assert _fixed(template, code, 2) == [code.replace(">", ">=")]
    other = "def g(n, a, limit):\n    x = n < MAX_N\n    y = a <= LIMIT\n    z = a < 3\n    w = a < limit\n"
    assert _fixed(template, other, 2) == [other.replace("n < MAX_N", "n <= MAX_N")]
    # Not the non-strict one, not against a number.
    assert _fixed(template, other, 3) == _fixed(template, other, 4) == []
    # A lower-case limit is one too, but a loose match: the examples were upper-case named limits.
    [loose] = apply_in(template, other, 5)
    [exact] = apply_in(template, other, 2)
    assert loose.loose and not exact.loose
    assert _fixed(template, other, 5) == [other.replace("a < limit", "a <= limit")]


def test_a_loop_bound_template_ignores_what_the_start_is_and_keeps_its_own_number() -> None:
    template = _template(*LOOP)
    assert (template.before_shape, template.after_shape) == ("range ( _1 , ID1 )", "range ( _1 , ID1 + 1 )")
    code = "def f(first, last, n):\n    for stop in range(first, last):\n        pass\n    for k in range(0, n):\n" \
           "        pass\n    for k in range(n):\n        pass\n    x = len(first, last)\n"
    assert _fixed(template, code, 2) == [code.replace("range(first, last)", "range(first, last + 1)")]
    assert _fixed(template, code, 4) == [code.replace("range(0, n)", "range(0, n + 1)")]  # `+ 1`, not `+ 0`
    assert _fixed(template, code, 6) == [] and _fixed(template, code, 8) == []


def test_two_exchanged_arguments_are_one_template_whatever_the_call() -> None:
    template = _template(*SWAP)
    assert (template.before_shape, template.after_shape) == ("_1 , _2", "_2 , _1")
    assert template.name == "two neighbouring arguments of a call are exchanged"
    code = "price = zone_price(PER_ZONE, zones)\nx = max(a, b)\ny = f(a, b, c)\nz = g(a, x=1, y=2)\n"
    assert _fixed(template, code, 1) == [code.replace("zone_price(PER_ZONE, zones)", "zone_price(zones, PER_ZONE)")]
    assert _fixed(template, code, 2) == []  # exchanging max's arguments changes nothing
    assert sorted(_fixed(template, code, 3)) == sorted([code.replace("f(a, b, c)", "f(b, a, c)"),
                                                        code.replace("f(a, b, c)", "f(a, c, b)")])
    assert _fixed(template, code, 4) == []  # keyword arguments exchanged are the same call


def test_a_missing_none_guard_is_one_template() -> None:
    template = _template(*GUARD)
    assert (template.before_shape, template.after_shape) == ("ID1 . _1", "ID1 is None or ID1 . _1")
    code = "def f(card):\n    if card.expired:\n        return 0\n"
    assert _fixed(template, code, 2) == [code.replace("if card.expired", "if card is None or card.expired")]


@pytest.mark.parametrize("one, other", [
    # The reverse edit, another operator, another number, another method, another guard.
    (LIMIT[0], ("return item.on_hand <= REORDER_AT\n", "return item.on_hand < REORDER_AT\n")),
    (LIMIT[0], ("return item.on_hand < REORDER_AT\n", "return item.on_hand == REORDER_AT\n")),
    (LOOP[0], ("for w in range(1, weeks):\n    pass\n", "for w in range(1, weeks - 1):\n    pass\n")),
    (LOOP[0], ("for w in range(1, weeks):\n    pass\n", "for w in range(1, weeks + 2):\n    pass\n")),
    (("out.append(items)\n", "out.extend(items)\n"), ("out.append(items)\n", "out.insert(items)\n")),
    (GUARD[0], ("if mentor.away:\n    pass\n", "if mentor is not None and mentor.away:\n    pass\n")),
    (SWAP[0], ("x = f(a, b, c)\n", "x = f(c, a, b)\n")),  # a rotation is not an exchange
    (LIMIT[0], LOOP[0]),
])
def test_different_edits_do_not_share_a_template(one: tuple[str, str], other: tuple[str, str]) -> None:
    a, b = _window(*one), _window(*other)
    assert a.key != b.key


def test_a_replaced_name_is_part_of_the_edit() -> None:
    template = _template(("out.append(items)\n", "out.extend(items)\n"), ("acc.append(x)\n", "acc.extend(x)\n"))
    code = "acc.append(x)\nacc.remove(x)\n"
    assert _fixed(template, code, 1) == ["acc.extend(x)\nacc.remove(x)\n"]
    assert _fixed(template, code, 2) == []


def test_a_template_does_not_match_unrelated_code() -> None:
    templates = [_template(*pairs) for pairs in (LIMIT, LOOP, GUARD)]
    code = ("import os\n\n\ndef area(w, h):\n    total = w * h\n    print(total)\n    return {'w': w, 'h': h}\n")
    for template in templates:
        assert all(_fixed(template, code, line) == [] for line in range(1, 8)), template.before_shape


def test_the_proposer_ranks_places_by_suspicion_and_by_the_callee_parameter_names() -> None:
    swap, limit = _template(*SWAP), _template(*LIMIT)
    source = ("PER_ZONE = 0.5\nSENIOR_AGE = 65\n\n\ndef zone_price(zones, per_zone):\n    return 2.0 + zones * per_zone\n\n\n"
              "def fare(age, zones):\n    price = zone_price(PER_ZONE, zones)\n    if age > SENIOR_AGE:\n"
              "        price = round(price, 2)\n    return price\n")
    ctx = ProposalContext(sources={"t/fares.py": source}, baseline=TestReport(()), target_tests=(),
                          suspects=(Suspect("t/fares.py", 12, 0.9), Suspect("t/fares.py", 10, 0.9),
                                    Suspect("t/fares.py", 11, 0.9)))
    patches = list(MinedTemplateProposer(lambda: [limit, swap]).propose(ctx))
    afters = [p.changes[0].after for p in patches]
    # The exchange that lines the arguments up with `zone_price(zones, per_zone)` comes first, then the rest
    # in the order of the suspects; `round(2, price)` lines nothing up either way.
    assert afters[0] == source.replace("zone_price(PER_ZONE, zones)", "zone_price(zones, PER_ZONE)")
    assert afters[1:] == [source.replace("round(price, 2)", "round(2, price)"),
                          source.replace("age > SENIOR_AGE", "age >= SENIOR_AGE")]
    assert {p.operator for p in patches} == {swap.operator, limit.operator}
    capped = list(MinedTemplateProposer(lambda: [limit, swap], per_template=1).propose(ctx))
    assert len(capped) == 2


def test_a_limit_template_tries_the_named_constant_before_a_lower_case_limit_at_the_same_suspicion() -> None:
    limit = _template(*LIMIT)
    source = ("CAP = 9\n\n\ndef fits(n, room):\n    ok = n < room\n    full = n > CAP\n    return ok, full\n")
    suspects = (Suspect("m.py", 5, 0.9), Suspect("m.py", 6, 0.9))
    ctx = ProposalContext(sources={"m.py": source}, baseline=TestReport(()), target_tests=(), suspects=suspects)
    afters = [p.changes[0].after for p in MinedTemplateProposer(lambda: [limit]).propose(ctx)]
    assert afters == [source.replace("n > CAP", "n >= CAP"), source.replace("n < room", "n <= room")]
    # The localization still decides first: a lower-case limit on the most suspicious line comes first.
    ctx = ProposalContext(sources={"m.py": source}, baseline=TestReport(()), target_tests=(),
                          suspects=(Suspect("m.py", 5, 0.9), Suspect("m.py", 6, 0.3)))
    afters = [p.changes[0].after for p in MinedTemplateProposer(lambda: [limit]).propose(ctx)]
    assert afters == [source.replace("n < room", "n <= room"), source.replace("n > CAP", "n >= CAP")]


def test_an_edit_form_template_round_trips_and_a_broken_one_is_refused() -> None:
    template = _template(*LIMIT)
    again = from_spec(template.spec())
    assert again.id == template.id and again.form == "edit" and again.contexts == template.contexts
    spec = template.spec()
    with pytest.raises(ValueError, match="'span' must be"):
        from_spec({**spec, "span": "everywhere"})
    with pytest.raises(ValueError, match="'within' must name a syntax node"):
        from_spec({**spec, "within": "x; rm -rf /"})
    with pytest.raises(ValueError, match="'form' must be one of"):
        from_spec({**spec, "form": "regex"})
    wrong = from_spec({**spec, "within": "call"})  # parses, but its window is no call
    assert "no longer reads back as a call" in problem(wrong)


def test_a_template_stored_in_the_whole_statement_form_still_loads_and_applies() -> None:
    # As templates were stored before the edit form: no "form", whole statements, roles ID/NUM/STR only.
    old = {"id": "x", "status": "approved", "before": [["text", "if", ""], ["role", "ID1", " "], ["text", ">", " "],
                                                        ["role", "ID2", " "], ["text", ":", ""]],
           "after": [["text", "if", ""], ["role", "ID1", " "], ["text", ">=", " "], ["role", "ID2", " "],
                     ["text", ":", ""]]}
    template = from_spec(old)
    assert template.form == "statement" and problem(template) == "" and template.before_shape == "if ID1 > ID2 :"
    assert template.id == "a13dd962e54c"  # the id it was stored and decided under
    source = "def f(qty, LIMIT):\n    if qty > LIMIT:\n        pass\n    x = qty > LIMIT\n"
    ctx = ProposalContext(sources={"m.py": source}, baseline=TestReport(()), target_tests=(),
                          suspects=(Suspect("m.py", 4, 0.9), Suspect("m.py", 2, 0.5)))
    [patch] = list(MinedTemplateProposer(lambda: [template]).propose(ctx))
    assert patch.changes[0].after == source.replace("if qty > LIMIT", "if qty >= LIMIT")


def test_a_statement_nested_past_the_stack_is_skipped_not_a_crash() -> None:
    template = _template(*LIMIT)
    deep = "x = " + "(" * 3000 + "a < LIMIT" + ")" * 3000 + "\ny = b < LIMIT\n"
    ctx = ProposalContext(sources={"m.py": deep}, baseline=TestReport(()), target_tests=(),
                          suspects=(Suspect("m.py", 1, 0.9), Suspect("m.py", 2, 0.5)))
    [patch] = list(MinedTemplateProposer(lambda: [template]).propose(ctx))
    assert patch.changes[0].after == deep.replace("b < LIMIT", "b <= LIMIT")
