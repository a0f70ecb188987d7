"""The backend table (`fixloop.adapters.sandbox.backends`) is the one list of sandbox backends: the settings check, the
CLI's help and `fixloop doctor` read it (`tests/sandbox/test_launcher.py` runs the doctor), and the places that cannot import Python (the editors' settings, the
docs) are held to it here, so a backend added to the table and forgotten in one of them fails a test."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from fixloop.cli import app
from fixloop.application.config import SandboxSettings, load
from fixloop.adapters.sandbox.backends import AUTO, AUTO_ORDER, BACKENDS, choices, names

REPO = Path(__file__).resolve().parents[2]


def test_the_table_names_each_backend_once_and_auto_never_runs_unsandboxed() -> None:
    assert len(set(names())) == len(BACKENDS) and AUTO not in names()
    assert choices() == (AUTO, *names())
    assert AUTO_ORDER and "none" not in AUTO_ORDER and set(AUTO_ORDER) <= set(names())


def test_every_factory_makes_the_backend_of_its_name() -> None:
    for kind in BACKENDS:
        made = kind.make(SandboxSettings(docker_image="python:3.12-slim"))
        assert made.name == kind.name, kind
        assert kind.summary and (kind.hint or kind.name == "none"), kind


def test_the_settings_accept_exactly_the_table() -> None:
    for name in choices():
        settings, problems = load({"sandbox": {"backend": name}})
        assert settings.sandbox.backend == name and not problems, (name, problems)
    settings, problems = load({"sandbox": {"backend": "chroot"}})
    assert settings.sandbox.backend == AUTO
    assert problems == [f"sandbox.backend: 'chroot' is not one of {', '.join(choices())}; using 'auto'"]


def test_the_cli_help_names_every_backend() -> None:
    for command in ("fix", "doctor"):
        help_text = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"}).output
        assert " | ".join(choices()) in help_text, help_text


def test_the_vscode_setting_offers_exactly_the_table() -> None:
    manifest = json.loads((REPO / "editors/vscode/package.json").read_text(encoding="utf-8"))
    setting = manifest["contributes"]["configuration"]["properties"]["fixloop.sandbox.backend"]
    assert setting["enum"] == list(choices()) and setting["default"] == AUTO


def test_the_neovim_help_lists_exactly_the_table() -> None:
    doc = (REPO / "editors/neovim/doc/fixloop.txt").read_text(encoding="utf-8")
    listed = re.findall(r"sandbox = \{ backend = '(\w+)' \},\s+-- (\S+)", doc)
    assert listed == [(AUTO, "|".join(choices()))], listed


def test_the_readme_and_the_sandbox_doc_describe_exactly_the_table() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme.split("| backend | what it is | when |", 1)[1].split("\n\n", 1)[0]
    assert re.findall(r"^\| `(\w+)` \|", table, re.M) == list(choices())
    row = next(line for line in readme.splitlines() if line.startswith("| `fixloop.sandbox.backend`"))
    assert re.findall(r"`(\w+)`", row.split("|")[4]) == list(choices()), row
    layers = (REPO / "docs/sandbox.md").read_text(encoding="utf-8").split("## Layers", 1)[1].split("\n## ", 1)[0]
    assert set(names()) <= set(re.findall(r"^\| (\w+) \|", layers, re.M)), layers
    assert "`backends.py`" in layers
