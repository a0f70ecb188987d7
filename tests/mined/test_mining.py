"""Mining mined templates from a real LanceDB store, their roles and shapes, decisions and demotion."""

from __future__ import annotations

import json
import time

from fixloop.kit.shapes import changed_statements, statements
from fixloop.adapters.memory.store import MemoryStore, new_id
from fixloop.adapters.mined import model
from fixloop.adapters.mined.mine import mine
from fixloop.adapters.mined.model import MinedTemplate, PatternToken, abstract, apply_to, problem
from fixloop.adapters.mined.registry import all_templates, approved, decide, records

from .helpers import CINEMA, LIBRARY, SHOP, teach, teach_strict_limit


def test_the_same_slip_fixed_in_two_projects_is_one_template_with_roles(store: MemoryStore) -> None:
    teach_strict_limit(store)
    [template] = mine(store)
    # The edit's window, not the statement: the comparison, with `>`/`<` one operator family.
    assert template.before_shape == "ID1 <|> CONST1" and template.after_shape == "ID1 <=|>= CONST1"
    assert template.form == "edit" and template.within == "comparison_operator"
    assert template.support == 2 and template.projects == 2 and template.status == "proposed"
    assert template.name == "a strict comparison against a named constant becomes non-strict (< -> <=, > -> >=)"
    assert {(e.project, e.path, e.before, e.after) for e in template.examples} == {
        ("shop", "shop/price.py", "if qty > BULK:", "if qty >= BULK:"),  # the folder's name, never the path
        ("cinema", "cinema/fees.py", "if age > SENIOR_AGE:", "if age >= SENIOR_AGE:")}
    assert not problem(template)


def test_one_place_is_no_template_however_often_it_was_fixed(store: MemoryStore) -> None:
    for run in ("a", "b", "c"):
        teach(store, "/p/shop", "shop/price.py", SHOP, SHOP.replace("qty > BULK", "qty >= BULK"), run)
    assert mine(store) == []
    assert [t.support for t in mine(store, min_support=1)] == [1]


def test_different_edits_and_different_role_patterns_stay_apart(store: MemoryStore) -> None:
    teach_strict_limit(store)
    # `>` -> `<`: another after-shape, another template (support 1: not proposed).
    teach(store, "/p/lib", "lib/loans.py", LIBRARY, LIBRARY.replace("loans > MAX_LOANS", "loans < MAX_LOANS"), "r3")
    assert [t.after_shape for t in mine(store)] == ["ID1 <=|>= CONST1"]
    assert sorted(t.after_shape for t in mine(store, min_support=1)) == ["ID1 < CONST1", "ID1 <=|>= CONST1"]
    # A role that recurs is part of the shape: `total = total + x` is not `total = base + x`.
    [same] = changed_statements("total = total + x\n", "total = total - x\n")
    [other] = changed_statements("total = base + x\n", "total = base - x\n")
    assert [t.value for t in abstract(same)[0]] == ["ID1", "=", "ID1", "+", "ID2"]
    assert model.template_id(*abstract(same)) != model.template_id(*abstract(other))


def test_a_new_name_in_the_fix_is_kept_as_its_text(store: MemoryStore) -> None:
    [edit] = changed_statements("out.append(items)\n", "out.extend(items)\n")
    before, after = abstract(edit)
    assert " ".join(t.value for t in before) == "ID1 . ID2 ( ID3 )"
    assert " ".join(t.value for t in after) == "ID1 . extend ( ID3 )"
    template = MinedTemplate(before, after)
    target = dict(statements("def f(acc, more):\n    acc.append(more)\n"))[2]
    edits = apply_to(template, target)
    assert edits is not None
    source = "def f(acc, more):\n    acc.append(more)\n"
    start, end, text = edits[0]
    assert source[:start] + text + source[end:] == "def f(acc, more):\n    acc.extend(more)\n"


def test_a_template_applies_only_where_the_shape_and_its_roles_match() -> None:
    [edit] = changed_statements("if qty > BULK:\n    pass\n", "if qty >= BULK:\n    pass\n")
    template = MinedTemplate(*abstract(edit))
    code = "def f(a, b, LIMIT):\n    if a > LIMIT:\n        pass\n    if a > a:\n        pass\n    if a > 3:\n        pass\n"
    lines = dict(statements(code))
    edits = apply_to(template, lines[2])
    assert edits and code[:edits[0][0]] + edits[0][2] + code[edits[0][1]:] == code.replace("a > LIMIT", "a >= LIMIT")
    assert apply_to(template, lines[4]) is None  # one text for two roles
    assert apply_to(template, lines[6]) is None  # a number where the template has a name


def test_a_fix_the_developer_rejected_does_not_count(store: MemoryStore) -> None:
    teach_strict_limit(store)
    store.update("fixes", "run_id = 'run-cinema'", {"decision": "rejected"})
    assert mine(store) == []
    store.update("fixes", "run_id = 'run-cinema'", {"decision": "accepted"})
    assert [t.accepted for t in mine(store)] == [1]


def test_a_rejected_template_never_comes_back(store: MemoryStore) -> None:
    teach_strict_limit(store)
    [template] = mine(store)
    decide(store, template.id[:6], "rejected")
    # More support later does not bring it back as a proposal.
    teach(store, "/p/lib", "lib/loans.py", LIBRARY, LIBRARY.replace("loans > MAX_LOANS", "loans >= MAX_LOANS"), "r3")
    assert mine(store, skip=frozenset({template.id})) == []
    [listed] = all_templates(store)
    assert listed.id == template.id and listed.status == "rejected"
    assert approved(store) == []


def test_an_approved_template_is_served_without_mining_and_loses_its_place_when_it_keeps_failing(
        store: MemoryStore) -> None:
    teach_strict_limit(store)
    [template] = mine(store)
    decide(store, template.id, "approved")
    # The fixes it was mined from may go (forgotten, evicted): the decision keeps the template.
    store.delete("fixes", "true")
    [served] = approved(store)
    assert served.id == template.id and not served.record.demoted and served.place == "before the generic operators"

    def tried(run: str, fixed: bool, when: float) -> None:
        store.add("operator_stats", [{"id": new_id(), "project": "/p/x", "error_class": "AssertionError",
                                      "operator": template.operator, "success": fixed, "weight": 1.0,
                                      "source": "test", "run_id": run, "time": when}])

    now = time.time()
    tried("r1", True, now)
    tried("r2", False, now + 1)
    tried("r2", True, now + 2)  # a run with a miss and a fix counts as a fixed run
    assert records(store, [template.id])[template.id].recent == (True, True)
    for k in range(3):
        tried(f"m{k}", False, now + 10 + k)
    rec = records(store, [template.id])[template.id]
    assert (rec.tries, rec.successes, rec.demoted) == (5, 2, False)  # 2 of the last 5 fixed: keeps its place
    tried("m3", False, now + 20)
    [demoted] = approved(store)
    assert demoted.record.demoted and demoted.record.recent == (True, False, False, False, False)
    assert demoted.place == "after the generic operators"
    # It can win its place back: the window moves on.
    tried("w1", True, now + 30)
    tried("w2", True, now + 31)
    assert not approved(store)[0].record.demoted


def test_shapes_that_do_not_read_back_as_a_statement_are_a_problem() -> None:
    def pattern(text: str) -> tuple[PatternToken, ...]:
        return tuple(PatternToken(bool(model.ROLE.match(v)), v, " " if k else "") for k, v in enumerate(text.split()))

    good = MinedTemplate(pattern("if ID1 > ID2 :"), pattern("if ID1 >= ID2 :"))
    assert problem(good) == ""
    assert "does not parse" in problem(MinedTemplate(pattern("if ID1 > > ID2 :"), pattern("if ID1 >= ID2 :")))
    assert "role its before-shape does not have" in problem(MinedTemplate(pattern("return ID1"), pattern("return ID2")))
    assert "is not a role" in problem(MinedTemplate((PatternToken(True, "ID0"),), pattern("pass")))
    # Each kind of statement reads back: clauses, headers, simple statements.
    for text in ("elif ID1 < NUM1 :", "return ID1 [ ID2 : - NUM1 ]", "for ID1 in range ( len ( ID2 ) ) :",
                 "except ID1 :", "ID1 += STR1"):
        assert problem(MinedTemplate(pattern(text), pattern(text))) == "", text


def test_mining_ignores_fixes_of_several_statements_and_tiny_statements(store: MemoryStore) -> None:
    two = SHOP.replace("qty > BULK", "qty >= BULK").replace("return unit * qty\n", "return unit * qty * 1\n")
    teach(store, "/p/a", "shop/price.py", SHOP, two, "r1")
    teach(store, "/p/b", "shop/price.py", SHOP.replace("shop", "shop2"), two.replace("shop", "shop2"), "r2")
    assert mine(store, min_support=1) == []
    tiny = "def f(x):\n    return x\n"
    teach(store, "/p/a", "t.py", tiny, tiny.replace("return x", "return -x"), "r3")
    teach(store, "/p/b", "u.py", tiny, tiny.replace("return x", "return -x"), "r4")
    assert mine(store) == []  # `return ID1` has two tokens
    assert CINEMA  # the helpers' other projects are used by the tests above


def test_a_stored_template_that_no_longer_parses_is_skipped_with_a_message_and_kept(
        store: MemoryStore, caplog) -> None:
    teach_strict_limit(store)
    [template] = mine(store)
    decide(store, template.id, "approved")
    spec = template.spec()
    spec["before"][1] = ["text", ">>>", " "]  # as if an older grammar had read it otherwise
    store.add("mined_templates", [{"id": new_id(), "template_id": "feedfacecafe", "verdict": "approved",
                                   "spec": json.dumps(spec), "source": "import", "time": time.time()}])
    store.add("mined_templates", [{"id": new_id(), "template_id": "0badc0ffee00", "verdict": "approved",
                                   "spec": "{not json", "source": "import", "time": time.time()}])
    with caplog.at_level("WARNING", logger="fixloop.adapters.mined"):
        assert [t.id for t in approved(store)] == [template.id]
    assert "mined template feedfacecafe is not used: its before-shape `ID1 >>> CONST1` does not parse" in caplog.text
    assert "mined template 0badc0ffee00: its stored form is unreadable" in caplog.text
    assert store.count("mined_templates") == 3  # nothing is deleted
