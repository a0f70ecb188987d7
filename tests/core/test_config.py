import os
from pathlib import Path

import pytest

from fixloop.application.config import (AT_MOST, FIXED_CAP, FREE, INSIDE, LIMIT, ONLY_FALSE, ONLY_TRUE, PROJECT_RULES, STRICTER, USER,
                            Settings, from_pyproject, load, project_settings, setting_keys)


def test_defaults_and_overrides() -> None:
    settings, problems = load({"max_iterations": 5, "llm": {"model": "m"}, "sandbox": {"backend": "none"}})
    assert problems == []
    assert settings.max_iterations == 5 and settings.limits().max_iterations == 5
    assert settings.llm.model == "m" and settings.sandbox.backend == "none"
    assert settings.memory.enabled is True


def test_bad_values_fall_back_with_a_message() -> None:
    settings, problems = load({"max_iterations": -1, "offline": "yes", "sandbox": {"backend": "vm"}, "nope": 1,
                               "llm": "not a table", "pytest_args": ["-q", 3]})
    assert settings == Settings()
    text = "\n".join(problems)
    for key in ("max_iterations", "offline", "sandbox.backend", "nope: unknown", "llm: expected a table", "pytest_args"):
        assert key in text


def test_pyproject_table_and_broken_toml(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.fixloop]\nmax_candidates = 7\n[tool.fixloop.memory]\nenabled = false\n")
    settings, problems = from_pyproject(tmp_path)
    assert settings.max_candidates == 7 and settings.memory.enabled is False and problems == []
    (tmp_path / "pyproject.toml").write_text("[tool.fixloop\n")
    settings, problems = from_pyproject(tmp_path)
    assert settings == Settings() and "cannot read" in problems[0]


def test_a_project_file_cannot_redirect_the_key_or_switch_the_sandbox_off(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.fixloop]\nmax_candidates = 9\n"
        "[tool.fixloop.llm]\nbase_url = 'http://127.0.0.1:9'\napi_key_env = 'MY_CLOUD_SECRET'\napi_key = 'sk-x'\n"
        "[tool.fixloop.sandbox]\nbackend = 'none'\n"
    )
    settings, problems = from_pyproject(tmp_path)
    assert settings.max_candidates == 9
    assert settings.llm.base_url == "" and settings.llm.api_key_env == "ANTHROPIC_API_KEY"
    assert settings.llm.api_key == "" and settings.sandbox.backend == "auto"
    assert len(problems) == 4 and all("ignored from a project file" in p for p in problems)


# ---- a project may only tighten ------------------------------------------------------------------------

def _project(tmp_path: Path, toml: str) -> tuple[Settings, list[str]]:
    (tmp_path / "pyproject.toml").write_text(toml)
    return from_pyproject(tmp_path)


def _get(settings: object, dotted: str) -> object:
    for part in dotted.split("."):
        settings = getattr(settings, part)
    return settings


def _toml(dotted: str, value: str) -> str:
    *section, key = dotted.split(".")
    return f"[tool.fixloop{''.join('.' + s for s in section)}]\n{key} = {value}\n"


def test_every_setting_has_a_project_rule() -> None:
    """A new setting must say whether a project may set it: no key is free by omission."""
    assert set(setting_keys()) == set(PROJECT_RULES)
    assert {rule for rule, _ in PROJECT_RULES.values()} <= {AT_MOST, LIMIT, FIXED_CAP, ONLY_TRUE, ONLY_FALSE, INSIDE,
                                                            STRICTER, USER, FREE}


@pytest.mark.parametrize("key", sorted(k for k, (rule, _) in PROJECT_RULES.items() if rule in (AT_MOST, LIMIT)
                                        and _get(Settings(), k) != 0))
def test_a_project_may_lower_a_limit_but_not_raise_it(tmp_path: Path, key: str) -> None:
    default = _get(Settings(), key)
    assert isinstance(default, (int, float)) and default > 0 and (isinstance(default, float) or default >= 2), key
    lower = type(default)(max(2, default // 2) if isinstance(default, int) else default / 2)
    settings, problems = _project(tmp_path, _toml(key, repr(lower)))
    assert _get(settings, key) == lower and problems == [], problems
    higher = type(default)(default * 10)
    settings, problems = _project(tmp_path, _toml(key, repr(higher)))
    assert _get(settings, key) == default
    assert len(problems) == 1 and f"{key} = {higher!r}: refused, a project may only lower it" in problems[0]
    assert "your own settings" in problems[0]


@pytest.mark.parametrize("key", sorted(k for k, (rule, _) in PROJECT_RULES.items() if rule in (ONLY_TRUE, ONLY_FALSE)))
def test_a_project_may_switch_a_guard_on_but_not_off(tmp_path: Path, key: str) -> None:
    allowed = PROJECT_RULES[key][0] == ONLY_TRUE
    default = _get(Settings(), key)
    settings, problems = _project(tmp_path, _toml(key, str(allowed).lower()))
    assert _get(settings, key) is allowed and problems == [], problems
    settings, problems = _project(tmp_path, _toml(key, str(not allowed).lower()))
    if default is (not allowed):  # already the default: nothing is loosened
        assert problems == []
    else:
        assert _get(settings, key) is default
        assert len(problems) == 1 and f"a project may only set it to {str(allowed).lower()}" in problems[0]


@pytest.mark.parametrize("key", sorted(k for k, (rule, _) in PROJECT_RULES.items() if rule == USER))
def test_a_project_may_not_set_the_users_keys(tmp_path: Path, key: str) -> None:
    default = _get(Settings(), key)
    value = "0.0" if isinstance(default, float) else "'x-from-the-project'"
    settings, problems = _project(tmp_path, _toml(key, value))
    assert _get(settings, key) == default
    assert len(problems) == 1 and f"{key}: ignored from a project file" in problems[0], problems


@pytest.mark.parametrize("key", sorted(k for k, (rule, _) in PROJECT_RULES.items() if rule == LIMIT))
def test_zero_is_no_limit_so_a_project_may_not_set_it_over_one_but_may_set_one_over_none(tmp_path: Path,
                                                                                      key: str) -> None:
    limited = Settings(**{key: 50.0})
    settings, problems = from_pyproject(_write(tmp_path, _toml(key, "0")), limited)
    assert _get(settings, key) == 50.0 and len(problems) == 1 and f"{key} = 0: refused" in problems[0]
    assert "0 means no limit" in problems[0]
    unlimited = Settings(**{key: 0.0})
    settings, problems = from_pyproject(_write(tmp_path, _toml(key, "900")), unlimited)
    assert _get(settings, key) == 900 and problems == []


def test_a_project_may_lower_a_run_cap_the_user_set_but_never_replace_the_derived_one(tmp_path: Path) -> None:
    assert PROJECT_RULES["test_timeout"][0] == FIXED_CAP and Settings().test_timeout == 0
    settings, problems = from_pyproject(_write(tmp_path, _toml("test_timeout", "30")))
    assert settings.test_timeout == 0 and len(problems) == 1 and "test_timeout = 30: refused" in problems[0]
    assert "derived from the suite's own timings" in problems[0]
    settings, problems = from_pyproject(_write(tmp_path, _toml("test_timeout", "30")), Settings(test_timeout=100.0))
    assert settings.test_timeout == 30 and problems == []
    settings, problems = from_pyproject(_write(tmp_path, _toml("test_timeout", "0")), Settings(test_timeout=100.0))
    assert settings.test_timeout == 100.0 and "test_timeout = 0: refused" in problems[0]


def _write(root: Path, toml: str) -> Path:
    (root / "pyproject.toml").write_text(toml)
    return root


def test_prices_backend_and_budget_are_refused_each_by_name(tmp_path: Path) -> None:
    settings, problems = _project(tmp_path, "[tool.fixloop.llm]\ninput_price_per_mtok = 0\noutput_price_per_mtok = 0\n"
                                            "daily_budget_usd = 1000\nmodel = 'big'\n"
                                            "[tool.fixloop.sandbox]\nbackend = 'landlock'\n")
    assert settings.llm == Settings().llm and settings.sandbox.backend == "auto"
    named = " ".join(problems)
    for key in ("llm.input_price_per_mtok", "llm.output_price_per_mtok", "llm.daily_budget_usd", "llm.model",
                "sandbox.backend"):
        assert key in named


def test_a_project_interpreter_must_lie_inside_the_project(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".venv" / "bin").mkdir(parents=True)
    settings, problems = _project(project, "[tool.fixloop]\npython = '.venv/bin/python'\n")
    assert settings.python == str(project / ".venv" / "bin" / "python") and problems == []  # made absolute
    for outside in ("/usr/bin/python3", "../elsewhere/python", str(tmp_path / "python")):
        settings, problems = _project(project, f"[tool.fixloop]\npython = '{outside}'\n")
        assert settings.python == "" and "outside the project" in problems[0], outside
    # A folder on the way that is a link out of the project does not count as inside.
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", project / "tools")
    settings, problems = _project(project, "[tool.fixloop]\npython = 'tools/python'\n")
    assert settings.python == "" and "outside the project" in problems[0]


def test_the_user_may_loosen_what_a_project_may_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's file is the base a project tightens; the user's later settings (editor, CLI) win over both."""
    user = tmp_path / "user.toml"
    user.write_text("test_timeout = 400\nwarm_workers = 4\n[sandbox]\nbackend = 'landlock'\n")
    monkeypatch.setenv("FIXLOOP_CONFIG", str(user))
    project = tmp_path / "p"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.fixloop]\ntest_timeout = 300\nwarm_workers = 8\n")
    settings, problems = project_settings(project)
    assert settings.test_timeout == 300 and settings.warm_workers == 4 and settings.sandbox.backend == "landlock"
    assert len(problems) == 1 and "warm_workers = 8: refused" in problems[0] and "(it stays 4)" in problems[0]
    settings, more = load({"test_timeout": 900, "allow_test_edits": True}, settings, "--")
    assert settings.test_timeout == 900 and settings.allow_test_edits is True and more == []


def test_no_role_of_the_model_takes_its_model_from_a_project(tmp_path: Path) -> None:
    from fixloop.application.config import project_table

    roles = ("planner", "coder", "reflector", "reviewer", "auditor")
    allowed, refused = project_table({"llm": {"roles": {r: {"model": "cheap-model"} for r in roles}}}, Settings(), tmp_path)
    assert all(not v for v in allowed.get("llm", {}).get("roles", {}).values())
    assert sorted(r.split(":")[0] for r in refused) == sorted(f"llm.roles.{r}.model" for r in roles)
