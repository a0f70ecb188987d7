"""The `strategy` setting: the user's to choose (config file, --set, editor), never a project's."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixloop.application.config import Settings, from_pyproject, load, project_settings


@pytest.fixture(autouse=True)
def no_user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIXLOOP_CONFIG", str(tmp_path / "none.toml"))


def test_auto_by_default() -> None:
    assert Settings().strategy == "auto"


def test_the_user_pins_one() -> None:
    settings, problems = load({"strategy": "mutation-first"})
    assert settings.strategy == "mutation-first" and problems == []


def test_an_unknown_strategy_is_named_and_auto_is_used() -> None:
    settings, problems = load({"strategy": "fastest"})
    assert settings.strategy == "auto"
    assert problems and "strategy" in problems[0] and "memory-first" in problems[0]


def test_a_project_file_may_not_choose_it(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.fixloop]\nstrategy = "model-first"\n')
    settings, problems = from_pyproject(tmp_path, Settings())
    assert settings.strategy == "auto"
    assert any("strategy" in p and "ignored from a project file" in p for p in problems)


def test_a_project_file_does_not_undo_the_user_s_pin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "user.toml"
    user.write_text('strategy = "memory-first"\n')
    monkeypatch.setenv("FIXLOOP_CONFIG", str(user))
    project = tmp_path / "p"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.fixloop]\nstrategy = "auto"\n')
    settings, problems = project_settings(project)
    assert settings.strategy == "memory-first" and any("strategy" in p for p in problems)
