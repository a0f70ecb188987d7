from pathlib import Path

from fixloop.config import Settings, from_pyproject, load


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
    assert len(problems) == 4 and all("ignored" in p for p in problems)
