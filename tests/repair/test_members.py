"""`add_member`: a member left out of a literal collection, taken from the program's own literals."""

from __future__ import annotations

import textwrap

from fixloop.engines.repair.members import MEMBER_CAP, add_member
from fixloop.kit.syntax import Offsets, parse, walk
from tests.repair.test_operators import contains, results


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


SPLITTER = src('''
    def level(word, depth):
        unified = word.upper()
        if unified == "END":
            return -1
        if unified in ("IF", "FOR", "WHILE") and depth > 0:
            if unified == "CASE":
                return 2
            return 1
        return 0
''')


def test_a_member_the_subject_is_compared_with_comes_first() -> None:
    off = Offsets(SPLITTER)
    found = [m for n in walk(parse(SPLITTER).root_node) for m in add_member(n, off)]
    assert [m.summary.split(" + ")[1] for m in found] == ['"CASE"', '"END"']  # `"CASE"` nearer
    assert contains(add_member, SPLITTER, SPLITTER.replace('"WHILE")', '"WHILE", "CASE")'))
    assert found[0].weight > 0.9


def test_members_of_one_object_and_of_a_bare_tuple() -> None:
    before = src('''
        from lexer import tokens as T


        def group(tokens):
            kinds = T.DML, T.DDL
            return [t for t in tokens if t.kind in kinds or t.kind is T.CTE]
    ''')
    assert contains(add_member, before, before.replace("T.DML, T.DDL", "T.DML, T.DDL, T.CTE"))


def test_never_a_member_of_another_kind_a_docstring_or_one_already_held() -> None:
    before = src('''
        def f(x, n):
            """One of "b" or 'c'."""
            if x in ("a", 'b'):
                return n in (1, 2) or x == 'b' or x == 3 or x == f"{n}"
            return x
    ''')
    changed = results(add_member, before)
    assert all('"c"' not in c.split('"""')[2] for c in changed)
    assert before.replace("(1, 2)", "(1, 2, 3)") in changed
    assert not any("'b', 'b'" in c or '"a", \'b\', 3' in c for c in changed)
    assert not any('f"{n}"' in c.split("return")[0] for c in changed)


def test_at_most_a_few_members_a_collection() -> None:
    words = ", ".join(f'"w{i}"' for i in range(20))
    before = f'def f(x):\n    table = [{words}]\n    return x in ("a", "b")\n'
    assert len([c for c in results(add_member, before) if 'x in ("a", "b")' not in c]) == MEMBER_CAP
