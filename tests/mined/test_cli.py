"""`fixloop memory templates ...` through the real typer app on a real store."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fixloop.cli import app
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.store import MemoryStore

from .helpers import teach_strict_limit

runner = CliRunner()


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["memory", "templates", *args])
    return result.exit_code, result.stdout, result.stderr


def _store(uri: Path) -> MemoryStore:
    return MemoryStore(str(uri), HashingEmbedder()).open()


def test_list_show_approve_reject(tmp_path: Path) -> None:
    uri = tmp_path / "memory"
    code, out, err = _run("list", "--memory", str(uri))
    assert code == 0 and out == "" and "no mined templates yet" in err
    teach_strict_limit(_store(uri))

    code, out, _ = _run("list", "--memory", str(uri))
    assert code == 0 and "proposed" in out and "ID1 <|> CONST1  ->  ID1 <=|>= CONST1" in out
    [listed] = json.loads(_run("list", "--json", "--memory", str(uri))[1])
    assert listed["status"] == "proposed" and listed["support"] == 2 and listed["place"] == "only once approved"
    template_id = listed["id"]

    code, out, _ = _run("show", template_id[:5], "--memory", str(uri))
    assert code == 0 and "a strict comparison against a named constant becomes non-strict" in out
    assert "    - if qty > BULK:\n    + if qty >= BULK:" in out and "cinema/fees.py" in out

    code, _, err = _run("approve", template_id[:5], "--memory", str(uri))
    assert code == 0 and f"approved mined template {template_id}" in err
    [listed] = json.loads(_run("list", "--json", "--memory", str(uri))[1])
    assert listed["status"] == "approved" and listed["place"] == "before the generic operators"

    code, _, err = _run("reject", template_id, "--memory", str(uri))
    assert code == 0 and "will not be proposed again" in err
    assert json.loads(_run("list", "--json", "--memory", str(uri))[1])[0]["status"] == "rejected"

    code, _, err = _run("approve", "ffff", "--memory", str(uri))
    assert code == 1 and "names 0 mined templates" in err
    assert _run("show", "ffff", "--memory", str(uri))[0] == 1
    # A higher bar hides the template from mining, but a decided one stays listed with its decision.
    assert json.loads(_run("list", "--json", "--min-support", "3", "--memory", str(uri))[1])[0]["status"] == "rejected"


def test_export_then_import_into_another_memory(tmp_path: Path) -> None:
    one, two, file = tmp_path / "one", tmp_path / "two", tmp_path / "templates.json"
    teach_strict_limit(_store(one))
    [listed] = json.loads(_run("list", "--json", "--memory", str(one))[1])
    assert _run("approve", listed["id"], "--memory", str(one))[0] == 0
    code, _, err = _run("export", str(file), "--memory", str(one))
    assert code == 0 and "exported 1 mined template" in err
    data = json.loads(file.read_text())
    assert data["fixloop_mined_templates"] == 1 and data["templates"][0]["status"] == "approved"

    code, _, err = _run("import", str(file), "--memory", str(two))
    assert code == 0 and "imported 1 mined template(s), kept 0" in err
    [imported] = json.loads(_run("list", "--json", "--memory", str(two))[1])
    assert imported["id"] == listed["id"] and imported["status"] == "approved" and imported["origin"] == "imported"
    # Again: the decision made here is kept, nothing is added twice.
    code, _, err = _run("import", str(file), "--memory", str(two))
    assert code == 0 and "imported 0 mined template(s), kept 1" in err
    assert _store(two).count("mined_templates") == 1


def test_a_corrupt_or_unparseable_template_is_refused_by_name_and_the_others_imported(tmp_path: Path) -> None:
    one, two, file = tmp_path / "one", tmp_path / "two", tmp_path / "templates.json"
    teach_strict_limit(_store(one))
    assert _run("export", str(file), "--memory", str(one))[0] == 0
    data = json.loads(file.read_text())
    good = data["templates"][0]
    broken = json.loads(json.dumps(good))
    broken["id"] = "aaaaaaaaaaaa"
    broken["before"][1] = ["text", ">>>", " "]  # `ID1 >>> CONST1` is not Python
    corrupt = {"id": "bbbbbbbbbbbb", "before": "if x > y:", "after": []}
    data["templates"] = [corrupt, broken, "not a template", good]
    file.write_text(json.dumps(data))

    code, _, err = _run("import", str(file), "--memory", str(two))
    assert code == 0
    assert "template 1 (bbbbbbbbbbbb): corrupt: 'before' must be a non-empty list of tokens" in err
    assert "template 2 (aaaaaaaaaaaa): its before-shape `ID1 >>> CONST1` does not parse" in err
    assert "template 3: not a JSON object" in err
    assert "imported 1 mined template(s), kept 0 already decided here, refused 3" in err
    assert [t["id"] for t in json.loads(_run("list", "--json", "--memory", str(two))[1])] == [good["id"]]


def test_a_file_that_is_not_a_templates_file_imports_nothing(tmp_path: Path) -> None:
    uri, file = tmp_path / "memory", tmp_path / "t.json"
    for text, message in (("{nope", "is not JSON"), ('{"templates": []}', "is not a mined-templates file"),
                          ('{"fixloop_mined_templates": 9, "templates": []}', "has format 9")):
        file.write_text(text)
        code, _, err = _run("import", str(file), "--memory", str(uri))
        assert code == 1 and message in err and "nothing was imported" in err, err
    assert _run("import", str(tmp_path / "missing.json"), "--memory", str(uri))[0] == 2


def test_a_teammates_rows_reach_the_terminal_escaped(tmp_path: Path) -> None:
    # A shared bucket's row names a project and a path that write the clipboard, and code whose comment moves
    # the cursor (the examples keep the statement only, but the row holds it).
    from .helpers import CINEMA, SHOP, teach

    uri = tmp_path / "memory"
    osc52, erase, bidi = "\x1b]52;c;cHduZWQ=\x1b\\", "\x1b[1A\x1b[2K", "\u202e"
    store = _store(uri)
    shop = SHOP.replace("if qty > BULK:", f"if qty > BULK:  # {erase}{bidi}")
    teach(store, "/p/shop" + osc52, "shop" + osc52 + "/price.py", shop, shop.replace("qty > BULK", "qty >= BULK"),
          "run-shop")
    teach(store, "/p/cinema", "cinema/fees.py", CINEMA, CINEMA.replace("age > SENIOR_AGE", "age >= SENIOR_AGE"),
          "run-cinema")
    code, listing, _ = _run("list", "--memory", str(uri))
    [listed] = json.loads(_run("list", "--json", "--memory", str(uri))[1])
    code, shown, _ = _run("show", listed["id"], "--memory", str(uri))
    assert code == 0 and "shop\\x1b]52;c;cHduZWQ=\\x1b\\/price.py" in shown, shown
    for out in (listing, shown):
        assert "\x1b" not in out and bidi not in out, out
