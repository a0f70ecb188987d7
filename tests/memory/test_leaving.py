"""What leaves the machine is what docs/sharing.md and `fixloop memory sharing` say, column by column: rows with
every column filled (a secret, the home folder, the login name, an absolute path, code) go through the very
function a push uses (`privacy.for_sharing`), and each documented treatment is checked on what comes out."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from fixloop.core.sharing import SHARES
from fixloop.adapters.memory import packed, schema
from fixloop.adapters.memory.codefree import run_digest
from fixloop.adapters.memory.leaving import AS_IS, DIGEST, FOLDER, LEAVES, MASKED, NONE, REPACKED, SCRUBBED, listing, markdown
from fixloop.adapters.memory.privacy import SHARED_TABLES, for_sharing, scrub
from fixloop.adapters.memory.redact import redact

DOC = Path(__file__).resolve().parents[2] / "docs" / "sharing.md"
HOME = str(Path.home()).rstrip("/")
SECRET = "tok-9f8e7d6c5b4a3921"
ENV = {"USER": "alicia", "SHOP_TOKEN": SECRET}
# Every kind of private thing at once: a secret, a home path, another absolute folder with the login name, code.
TAINT = f"x = total(price) {SECRET} {HOME}/src/shop/price.py /srv/alicia/build/y.py alicia@corp.example"
PROJECT = f"{HOME}/src/shop"


def _value(field: pa.Field) -> Any:
    if pa.types.is_boolean(field.type):
        return True
    if pa.types.is_integer(field.type):
        return 3
    if pa.types.is_floating(field.type):
        return 1.5
    if pa.types.is_fixed_size_list(field.type):
        return [0.25] * field.type.list_size
    return TAINT


def full_row(table: str) -> dict[str, Any]:
    """A row of `table` with every column filled, shareable in every mode that shares any row of it."""
    row = {f.name: _value(f) for f in schema.schema_for(table, 4)}
    row.update({"id": "row-1", "project": PROJECT, "run_id": "20261127-230000-abc123"} if "project" in row else {"id": "row-1"})
    if table == "operator_stats":  # the words a code-free row is made of
        row.update(error_class="ValueError", operator="arithmetic_swap", source="test")
    if table == "failures":
        row["recall"] = packed.pack(row, {"id": "fix-1", "proposer": "mutation", "operator": "arithmetic_swap",
                                          "summary": TAINT, "fault_shape": TAINT, "edit": TAINT, "diff": TAINT})
    return row


def private(text: str) -> list[str]:
    return [p for p in (SECRET, HOME + "/", "/srv/", "alicia") if p in text]


def check(column: str, how: str, before: Any, after: Any, sent: dict[str, Any]) -> None:
    if how == REPACKED:  # the packed copy says what the row's own columns say, and its fix what fixes do
        unpacked = packed.unpack(after)
        assert unpacked is not None
        assert {k: v for k, v in unpacked.items() if k != "fix"} == {k: sent[k] for k in packed.FIELDS}
        fix_before = packed.fix_of(before)
        assert fix_before is not None and unpacked["fix"] is not None
        for key, value in unpacked["fix"].items():
            check(key, LEAVES["all"]["fixes"][1][key], fix_before[key], value, {})
    elif how == AS_IS:
        assert after == before, column
    elif how == SCRUBBED:
        assert after == scrub(before, env=ENV) and not private(after), (column, after)
    elif how == MASKED:
        assert after == redact(before, ENV) and SECRET not in after, (column, after)
    elif how == FOLDER:
        assert after == "shop", (column, after)
    elif how == DIGEST:
        assert after == run_digest(before) and re.fullmatch(r"[0-9a-f]{16}", after), (column, after)
    else:
        raise AssertionError(f"{column}: no check for the treatment {how!r}")


@pytest.mark.parametrize("share", SHARES)
@pytest.mark.parametrize("table", [t for t in SHARED_TABLES])
def test_what_leaves_is_what_the_list_says(share: str, table: str) -> None:
    rows, columns = LEAVES[share][table]
    row = full_row(table)
    out = for_sharing(table, [dict(row)], share, env=ENV)
    if rows == NONE:
        assert out == [] and columns == {}
        return
    (sent,) = out
    assert set(sent) == set(columns), f"{share}/{table}: leaves {sorted(set(sent) - set(columns))}, " \
                                      f"listed but absent {sorted(set(columns) - set(sent))}"
    for column, how in columns.items():
        check(column, how, row[column], sent[column], sent)


def test_the_rows_a_mode_keeps_home_stay_home() -> None:
    for share in SHARES:
        everything = LEAVES[share]["failures"][0] == "every row"
        assert bool(for_sharing("failures", [{**full_row("failures"), "fixed": False}], share, env=ENV)) == everything
        assert bool(for_sharing("fixes", [{**full_row("fixes"), "verified": False}], share, env=ENV)) == everything
    stat = full_row("operator_stats")
    for unfit in ({"error_class": "InsufficientFundsError"}, {"error_class": TAINT}, {"operator": TAINT},
                  {"operator": "mined:zz"}, {"source": "import"}):
        assert for_sharing("operator_stats", [{**stat, **unfit}], "fixes-and-stats", env=ENV) == [], unfit
        assert for_sharing("operator_stats", [{**stat, **unfit}], "all", env=ENV), unfit  # `all` keeps its meaning


def test_the_default_lets_no_code_path_name_or_secret_out_of_the_statistics() -> None:
    (sent,) = for_sharing("operator_stats", [full_row("operator_stats")], "fixes-and-stats", env=ENV)
    assert not private(json.dumps(sent)) and "shop" not in json.dumps(sent) and TAINT not in sent.values()


def test_the_docs_and_the_command_show_the_list() -> None:
    text = DOC.read_text(encoding="utf-8")
    begin, end = "<!-- leaving:begin (fixloop.adapters.memory.leaving.markdown) -->\n", "<!-- leaving:end -->"
    assert text[text.index(begin) + len(begin):text.index(end)] == markdown(), \
        "docs/sharing.md is out of date: paste fixloop.adapters.memory.leaving.markdown() between its markers"
    for share in SHARES:
        listed = listing(share)
        assert set(listed["tables"]) == set(SHARED_TABLES) | {"forgotten"}
        assert f'`memory.share = "{share}"`' in text


def test_forgotten_rows_carry_what_the_list_says() -> None:
    assert {f.name for f in schema.FORGOTTEN} == set(LEAVES["fixes-and-stats"]["forgotten"][1])


def test_fixloop_memory_sharing_prints_the_list_for_your_mode(tmp_path: Path, monkeypatch) -> None:
    from typer.testing import CliRunner

    from fixloop.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FIXLOOP_CONFIG", str(tmp_path / "config.toml"))
    runner = CliRunner()
    result = runner.invoke(app, ["memory", "sharing"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {**listing("fixes-and-stats"), "yours": "fixes-and-stats", "shared_memory": ""}
    (tmp_path / "config.toml").write_text('[memory]\nshare = "fixes-only"\nuri = "s3://team/fixloop"\n')
    (tmp_path / "pyproject.toml").write_text('[tool.fixloop.memory]\nshare = "all"\n')  # a project cannot widen it
    shown = json.loads(runner.invoke(app, ["memory", "sharing"]).stdout)
    assert shown["yours"] == shown["share"] == "fixes-only" and shown["tables"]["operator_stats"]["rows"] == NONE
    assert shown["shared_memory"] == "s3://team/fixloop"
    other = json.loads(runner.invoke(app, ["memory", "sharing", "--share", "all"]).stdout)
    assert other["share"] == "all" and other["yours"] == "fixes-only"
    assert runner.invoke(app, ["memory", "sharing", "--share", "everything"]).exit_code == 2


def test_every_operator_name_fixloop_writes_is_one_the_default_shares() -> None:
    """A statistic of one of fixloop's own operators, strategies or templates is never withheld by mistake."""
    from fixloop.core.strategies import STRATEGIES
    from fixloop.adapters.memory.codefree import STRATEGY_CLASS, code_free
    from fixloop.engines.repair.catalog import DEFAULT_PRIORS
    from fixloop.adapters.memory import outcomes

    assert STRATEGY_CLASS == outcomes.STRATEGY_CLASS and outcomes.SOURCE == "strategy"
    names = [*DEFAULT_PRIORS, "replay", "edit", "text_edit", "add_import", "none_guard", "mined:0123456789ab"]
    for name in names:
        assert code_free({"error_class": "AssertionError", "operator": name, "source": "test"}), name
    for name in STRATEGIES:
        assert code_free({"error_class": STRATEGY_CLASS, "operator": name, "source": "strategy"}), name
