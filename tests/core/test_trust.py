"""Trust grants as data (core/trust.py) and the ledger's file (adapters/trust/ledger_file.py)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from fixloop.application.trust_ledger import LedgerFile
from fixloop.core import trust
from fixloop.core.model import FileChange, Patch
from fixloop.core.trust import Entry, FixKind, Ledger, TrustSettings

CART = FileChange("shop/cart.py", "x = a > b\n", "x = a >= b\n")
SEARCH = FixKind("search", "compare_op", "AssertionError")
ON = TrustSettings(after=2)


def test_a_fix_has_a_kind_unless_no_grant_may_cover_it() -> None:
    assert trust.kind_of(Patch((CART,), "mutation", "compare_op"), ["AssertionError", "AssertionError"]) == SEARCH
    assert trust.kind_of(Patch((CART,), "checker", "ruff-fix"), ["ruff F401", "ruff E711"]).error == "ruff E711+ruff F401"
    assert trust.kind_of(Patch((CART,), "llm", "edit"), ["TypeError"]).model_written
    assert trust.kind_of(Patch((CART,), "claude", "edit"), []).error == "unknown"
    test_edit = FileChange("tests/test_cart.py", "a\n", "b\n")
    new_file = FileChange("tests_new.py", "", "def test(): pass\n")
    stacked = Patch((CART,), "mutation", "compare_op", meta={"parts": ("a", "b")})
    for never in (None, Patch((CART, test_edit), "mutation", "x"), Patch((new_file,), "mutation", "x"), stacked,
                  Patch((CART,), "", "x"), Patch((), "mutation", "x")):
        assert trust.kind_of(never, ["AssertionError"]) is None


def test_the_question_comes_after_n_accepted_in_a_row_and_a_rejection_starts_again() -> None:
    entry = Entry()
    assert not trust.may_ask(entry, SEARCH, ON)
    entry = trust.decided(entry, "r1", True)
    entry = trust.decided(entry, "r1", True)  # a second hunk of the same run is not a second fix
    assert entry.streak == ("r1",) and not trust.may_ask(entry, SEARCH, ON)
    entry = trust.decided(entry, "r2", True)
    assert trust.may_ask(entry, SEARCH, ON)
    assert not trust.may_ask(entry, SEARCH, TrustSettings(after=0))  # off by default
    entry = trust.declined(entry)  # "keep asking": as many again before the next question
    assert not trust.may_ask(trust.decided(entry, "r3", True), SEARCH, ON)
    assert trust.may_ask(trust.decided(trust.decided(entry, "r3", True), "r4", True), SEARCH, ON)
    rejected = trust.decided(entry, "r5", False)
    assert rejected.streak == () and rejected.rejected == 1 and not trust.may_ask(rejected, SEARCH, ON)


def test_a_grant_is_used_only_while_trust_is_on_and_ends_with_a_rejection_or_an_undo() -> None:
    entry = trust.granted(trust.decided(trust.decided(Entry(), "r1", True), "r2", True), 100.0)
    assert trust.active(entry, SEARCH, ON) and not trust.may_ask(entry, SEARCH, ON)
    assert not trust.active(entry, SEARCH, TrustSettings(after=0))
    assert not trust.active(entry, None, ON) and not trust.active(None, SEARCH, ON)
    ended = trust.decided(entry, "r3", False, "you undid a fix applied without asking")
    assert not trust.active(ended, SEARCH, ON) and ended.ended == "you undid a fix applied without asking"
    assert trust.decided(entry, "r3", False).ended == "you rejected a fix of this kind"
    assert trust.revoked(entry, "you revoked it").granted == 0


def test_a_model_written_kind_needs_the_users_opt_in() -> None:
    model = FixKind("model", "edit", "TypeError")
    entry = trust.decided(trust.decided(Entry(), "r1", True), "r2", True)
    assert not trust.may_ask(entry, model, ON)
    assert trust.may_ask(entry, model, TrustSettings(after=2, model=True))
    granted = trust.granted(entry, 1.0)
    assert not trust.active(granted, model, ON) and trust.active(granted, model, TrustSettings(after=2, model=True))


def test_the_ledger_round_trips_and_a_foreign_shape_grants_nothing() -> None:
    ledger = Ledger()
    ledger.put("/p", SEARCH.id, trust.granted(Entry(streak=("r1",)), 5.0))
    ledger.put("/q", SEARCH.id, Entry(streak=("r2",)))
    again = Ledger.from_json(json.loads(json.dumps(ledger.to_json())))
    assert again == ledger and [(p, k) for p, k, _ in again.grants()] == [("/p", SEARCH.id)]
    assert again.grants("/q") == []
    for foreign in ([], {"projects": []}, {"projects": {"/p": {"k": {"granted": "yes", "streak": "r1"}}}},
                    {"projects": {"/p": {"k": {"granted": -1, "rejected": True}}}}):
        assert Ledger.from_json(foreign).grants() == []


def test_the_ledger_file_is_written_whole_and_an_unreadable_one_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "fixloop" / "trust.json"
    ledger = LedgerFile(path)
    assert ledger.read() == Ledger() and not path.exists()
    ledger.change(lambda l: l.put("/p", SEARCH.id, trust.granted(Entry(), 3.0)))
    assert [k for _, k, _ in LedgerFile(path).read().grants("/p")] == [SEARCH.id]
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".trust.json.")]  # no temp file left
    path.write_bytes(b"\xff\xfe not json")
    broken = LedgerFile(path)
    assert broken.read().grants() == [] and "unreadable" in broken.problem
    [aside] = path.parent.glob("trust.json.unreadable-*")
    assert aside.read_bytes() == b"\xff\xfe not json" and not path.exists()


def test_a_link_planted_in_place_of_the_ledger_is_not_followed(tmp_path: Path) -> None:
    path = tmp_path / "fixloop" / "trust.json"
    path.parent.mkdir()
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps(Ledger().to_json()))
    os.symlink(target, path)
    ledger = LedgerFile(path)
    assert ledger.read().grants() == [] and "unreadable" in ledger.problem
    assert target.read_text() == json.dumps(Ledger().to_json())


def test_two_writers_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"

    def accept(run: str) -> None:
        LedgerFile(path).change(lambda l: l.put("/p", SEARCH.id, trust.decided(l.get("/p", SEARCH.id), run, True)))

    threads = [threading.Thread(target=accept, args=(f"r{i}",)) for i in range(20)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(LedgerFile(path).read().get("/p", SEARCH.id).streak) == 20
