"""Wiring and sessions: proposer order, where the key comes from, lazy import, zero tokens offline."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixloop.core.review import ReviewSettings
from fixloop.application.run import RunRequest
from fixloop.application.config import LLMSettings, Settings, load
from fixloop.core.model import Status
from fixloop.adapters.llm.proposer import LLMProposer
from fixloop.adapters.memory.replay import MemoryReplayProposer
from fixloop.engines.repair.mutate import MutationProposer
from fixloop.application.session import FixSession
from fixloop.adapters.mined.proposer import MinedTemplateProposer
from fixloop.application.wiring import PROPOSERS, llm_api_key, make_proposers, with_api_key
from tests.conftest import PYTHON

from .fake_anthropic import FakeAnthropic
from .scripted import AVERAGE_PROJECT, RIGHT, ScriptedModel, write_project

SERVER = Path(__file__).resolve().parents[2] / "server"


def test_llm_comes_after_the_offline_engine_unless_first() -> None:
    names = [type(p) for p in make_proposers(Settings())]
    assert names == [MutationProposer, LLMProposer]
    first = Settings(llm=LLMSettings(first=True))
    assert [type(p) for p in make_proposers(first)] == [LLMProposer, MutationProposer]
    assert [type(p) for p in make_proposers(Settings(llm=LLMSettings(enabled=False)))] == [MutationProposer]


class _NoMemory:
    """A memory that remembers nothing: enough for the table to add the replay proposer."""

    def recall(self, report: Any, sources: Any) -> tuple[()]:
        return ()

    def priors(self, report: Any) -> dict[str, float]:
        return {}

    def record_attempt(self, run_id: str, attempt: Any, ctx: Any) -> None: ...

    def record_outcome(self, outcome: Any, ctx: Any) -> None: ...


def test_a_memory_puts_its_approved_templates_then_its_replay_first_and_every_proposer_is_named_as_in_the_table(
        ) -> None:
    for first in (False, True):
        made = make_proposers(Settings(llm=LLMSettings(first=first)), memory=_NoMemory())
        assert type(made[0]) is MinedTemplateProposer and not made[0].demoted
        assert type(made[1]) is MemoryReplayProposer
        assert sorted(p.name for p in made) == sorted(kind.name for kind in PROPOSERS)


def test_the_key_comes_from_settings_then_the_named_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "from-env")
    assert llm_api_key(Settings(llm=LLMSettings(api_key_env="MY_KEY"))) == "from-env"
    assert llm_api_key(Settings(llm=LLMSettings(api_key_env="MY_KEY", api_key="from-editor"))) == "from-editor"
    assert llm_api_key(Settings()) == ""
    assert llm_api_key(with_api_key(Settings(llm=LLMSettings(api_key_env="MY_KEY")), "from-lsp")) == "from-lsp"
    assert with_api_key(Settings(), "") == Settings()
    settings, problems = load({"llm": {"api_key": "sk-secret-123", "stream": False}})
    assert not problems and settings.llm.api_key == "sk-secret-123" and "sk-secret" not in repr(settings)


def test_importing_the_server_side_does_not_import_anthropic() -> None:
    code = "import sys, fixloop.application.wiring, fixloop.application.session, fixloop.adapters.llm.proposer; print('anthropic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(SERVER)})
    assert out.stdout.strip() == "False", out.stderr


def session_settings(fake: FakeAnthropic, **llm: object) -> Settings:
    return Settings(python=PYTHON, test_timeout=60, per_test_timeout=20,
                    llm=LLMSettings(base_url=fake.url, api_key="test-key", model="fake-model", max_retries=0, **llm))  # type: ignore[arg-type]


OFFLINE_FIXABLE = {
    "age.py": "def is_adult(age):\n    return age > 18\n",
    "test_age.py": "from age import is_adult\n\n\ndef test_eighteen():\n    assert is_adult(18)\n\n\n"
                   "def test_child():\n    assert not is_adult(10)\n",
}


@pytest.mark.e2e  # a whole sandboxed fix session
def test_a_bug_the_offline_engine_fixes_costs_only_its_review_or_nothing_without(fake: FakeAnthropic,
                                                                                tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", OFFLINE_FIXABLE)
    fake.fallback = ScriptedModel([], tokens=1000)
    session = FixSession(RunRequest(root, session_settings(fake)))
    outcome = session.run()
    assert outcome.status is Status.FIXED and outcome.patch is not None and outcome.patch.proposer != "llm"
    assert [r.body["tool_choice"]["name"] for r in fake.messages_requests()] == ["record_review"]
    assert session.summary["llm_calls"] == 1 and session.summary["tokens"] == 1100  # one budget for every role
    assert session.summary["review"] == {"verdict": "accept", "reason": "scripted review", "by": "fake-model",
                                         "candidate": 1}
    fake.requests.clear()
    quiet = FixSession(RunRequest(write_project(tmp_path / "again", OFFLINE_FIXABLE),
                       dataclasses.replace(session_settings(fake), review=ReviewSettings(enabled=False))))
    assert quiet.run().status is Status.FIXED and fake.requests == []
    assert quiet.summary["llm_calls"] == 0 and quiet.summary["tokens"] == 0 and quiet.summary["cost_usd"] == 0


@pytest.mark.e2e  # a whole sandboxed fix session
def test_a_session_records_model_cost_in_its_summary(fake: FakeAnthropic, tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", AVERAGE_PROJECT)
    fake.fallback = ScriptedModel([RIGHT], tokens=1000, cache_read=500)
    session = FixSession(RunRequest(root, session_settings(fake, first=True)))
    notes: list[str] = []
    outcome = session.run(lambda e: notes.append(e.kind))
    assert outcome.status is Status.FIXED and outcome.patch is not None and outcome.patch.proposer == "llm"
    summary = json.loads((Path(session.summary["run_dir"]) / "summary.json").read_text())
    # plan, look, edit, say done, then the review: one budget for every role
    assert summary["llm_calls"] == 5 and summary["input_tokens"] == 5000 and summary["output_tokens"] == 500
    assert summary["cache_read_tokens"] == 2000 and summary["cache_write_tokens"] == 0
    assert summary["tokens"] == 7500 and summary["cost_usd"] == pytest.approx((5000 * 3 + 500 * 15 + 2000 * 0.3) / 1e6)
    assert summary["review"]["verdict"] == "accept"
    assert summary["wall_seconds"] > 0


@pytest.mark.e2e  # a whole sandboxed fix session
def test_offline_setting_makes_no_request_and_says_so(fake: FakeAnthropic, tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", AVERAGE_PROJECT)
    settings = dataclasses.replace(session_settings(fake, first=True), offline=True, max_candidates=1)
    events = []
    outcome = FixSession(RunRequest(root, settings)).run(events.append)
    assert outcome.status in (Status.GAVE_UP, Status.LIMITS) and fake.requests == []
    assert [e.data["message"] for e in events if e.kind == "note"] == ["offline: the model is not called"]


def test_a_key_in_pyproject_is_ignored_with_a_message(tmp_path: Path) -> None:
    from fixloop.application.config import from_pyproject

    (tmp_path / "pyproject.toml").write_text('[tool.fixloop.llm]\napi_key = "sk-committed"\nmax_tool_rounds = 3\n')
    settings, problems = from_pyproject(tmp_path)
    assert settings.llm.api_key == "" and settings.llm.max_tool_rounds == 3
    assert problems and "llm.api_key: ignored from a project file (keep keys out of the repository" in problems[0]
