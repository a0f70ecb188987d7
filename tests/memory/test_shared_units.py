"""The shared memory's pieces that need no server: storage options and their refusals, what is
scrubbed before upload, the share policy, the write-ahead queue, and the settings."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixloop.application.config import MemorySettings, Settings, from_pyproject, load
from fixloop.adapters.memory.outbox import Outbox
from fixloop.adapters.memory.privacy import for_sharing, project_name, scrub, shareable
from fixloop.adapters.memory.remote import RemoteConfigError, explain, is_remote, storage_options
from fixloop.adapters.runner.interpreter import sandbox_env

from .conftest import SERVER

SECRET_ENV = {"AWS_ACCESS_KEY_ID": "AKIAABCDEFGHIJKLMNOP", "AWS_SECRET_ACCESS_KEY": "very-secret-value-123456"}


def test_object_storage_uris_are_remote_and_paths_are_not() -> None:
    assert is_remote("s3://team/memory") and is_remote("gs://b/p") and is_remote("az://c/p")
    assert not is_remote("/home/me/memory") and not is_remote("file:///tmp/m") and not is_remote("s3-folder")


def test_options_hold_the_endpoint_and_short_timeouts_never_a_credential() -> None:
    env = {**SECRET_ENV, "AWS_ENDPOINT_URL": "http://127.0.0.1:9000", "AWS_REGION": "eu-west-1"}
    options = storage_options("s3://team/memory", env)
    assert options["endpoint"] == "http://127.0.0.1:9000" and options["allow_http"] == "true"
    assert options["region"] == "eu-west-1" and options["client_retry_timeout"] == "4"
    assert not any(v in options.values() for v in SECRET_ENV.values())
    assert storage_options("s3://team/m", {"AWS_ENDPOINT_URL": "https://minio.corp:9000"})["allow_http"] == "false"
    assert storage_options("gs://team/m", {})["allow_http"] == "false"


@pytest.mark.parametrize("uri, env, words", [
    ("s3://team/m", {"AWS_ENDPOINT_URL": "http://storage.example.com"}, "AWS_ENDPOINT_URL"),
    ("s3://team/m", {"AWS_ENDPOINT_URL": "http://10.0.0.5:9000"}, "loopback"),
    ("s3://team/m", {"AWS_ENDPOINT_URL": "ftp://127.0.0.1"}, "AWS_ENDPOINT_URL"),
    ("s3://key:secret@team/m", {}, "memory.uri must not carry credentials"),
    ("s3:///m", {}, "names no bucket"),
])
def test_unsafe_or_broken_settings_are_refused_by_name(uri: str, env: dict, words: str) -> None:
    with pytest.raises(RemoteConfigError, match=words):
        storage_options(uri, env)


def test_errors_are_explained_by_setting_and_carry_no_secret(monkeypatch) -> None:
    for k, v in SECRET_ENV.items():
        monkeypatch.setenv(k, v)
    raw = RuntimeError("Status { status: 403, body: <Code>SignatureDoesNotMatch</Code> key very-secret-value-123456 }")
    message = explain("s3://team/m", raw)
    assert "AWS_SECRET_ACCESS_KEY" in message and "[SignatureDoesNotMatch]" in message
    assert "very-secret-value-123456" not in message
    assert "does not exist" in explain("s3://x/m", RuntimeError("<Code>NoSuchBucket</Code>"))
    assert "did not answer" in explain("s3://x/m", RuntimeError("tcp connect error: Connection refused"))
    with pytest.raises(RemoteConfigError) as refused:
        storage_options("s3://AKIAABCDEFGHIJKLMNOP:hunter2hunter2@team/m", {})
    message = explain("s3://AKIAABCDEFGHIJKLMNOP:hunter2hunter2@team/m", refused.value)
    assert "must not carry credentials" in message and "hunter2" not in message and "AKIAABCD" not in message


def test_scrub_removes_home_paths_user_names_and_secrets() -> None:
    env = {"USER": "alice", "SHOP_TOKEN": "tok-1234567890"}
    text = ('File "/home/alice/src/shop/price.py", line 4, in total; mail alice@corp.example; '
            'token tok-1234567890; /var/lib/ci/alice/build/x.py; self.alice = 1')
    clean = scrub(text, home="/home/alice", env=env)
    assert "~/src/shop/price.py" in clean and "<user>@corp.example" in clean and "<redacted>" in clean
    assert "…/x.py" in clean and "/var/lib" not in clean and "tok-1234567890" not in clean
    assert "self.alice = 1" in clean  # a word of code is not a user name
    assert project_name("/home/alice/src/shop") == "shop" and project_name("shop") == "shop"


def test_the_share_policy() -> None:
    assert shareable("failures", {"fixed": True}, "fixes-only") and not shareable("failures", {"fixed": False}, "fixes-only")
    assert shareable("fixes", {"verified": True}, "fixes-only")
    assert not shareable("decisions", {}, "fixes-only") and not shareable("operator_stats", {}, "fixes-only")
    stat = {"error_class": "ValueError", "operator": "arithmetic_swap", "source": "test"}
    assert shareable("operator_stats", stat, "fixes-and-stats") and not shareable("operator_stats", stat, "fixes-only")
    assert not shareable("decisions", {}, "fixes-and-stats") and not shareable("failures", {}, "fixes-and-stats")
    assert all(shareable(t, {}, "all") for t in ("failures", "fixes", "decisions", "operator_stats"))
    assert not shareable("meta", {}, "all")
    rows = for_sharing("fixes", [{"id": "1", "verified": True, "project": "/home/bob/p", "diff": "x", "vector": [1],
                                  "edit": "/home/bob/p"}], "all", env={"USER": "bob"})
    assert rows == [{"id": "1", "verified": True, "project": "p", "diff": "x", "edit": "/home/bob/p"}]


def test_the_queue_survives_a_torn_line_and_hands_each_id_once(tmp_path: Path) -> None:
    box = Outbox(tmp_path)
    box.put("failures", ["a", "b"])
    box.put("failures", ["b", "c"])
    with open(tmp_path / "outbox.jsonl", "a") as fh:
        fh.write('{"table": "fixes", "ids": ["half')  # a writer killed mid-line
    assert box.pending() == 3
    with box.sending() as paths:
        assert paths is not None and len(paths) == 1
        box.put("fixes", ["late"])  # written during a sync: the next one takes it
        assert box.read(paths) == {"failures": ["a", "b", "c"]}
        with box.sending(wait=False) as busy:
            assert busy is None  # another sync is running
    # A sync that died before deleting what it sent hands it again (the push is idempotent by id).
    with box.sending() as paths:
        assert paths is not None and box.read(paths) == {"failures": ["a", "b", "c"], "fixes": ["late"]}
        for p in paths:
            p.unlink()
    assert box.pending() == 0


def test_share_is_the_users_choice_and_checked() -> None:
    assert Settings().memory.share == "fixes-and-stats"  # the default: fixes, and statistics that carry no code
    settings, problems = load({"memory": {"share": "everything"}})
    assert settings.memory.share == "fixes-and-stats"
    (problem,) = [p for p in problems if "memory.share" in p]
    assert all(f"'{mode}'" in problem for mode in ("fixes-only", "fixes-and-stats", "all"))  # each mode, explained
    assert "operator statistics" in problem and "fixloop memory sharing" in problem
    for mode in ("fixes-only", "fixes-and-stats", "all"):
        assert load({"memory": {"share": mode}}) == (dataclasses.replace(Settings(), memory=MemorySettings(share=mode)), [])


def test_a_project_file_cannot_widen_sharing(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.fixloop.memory]\nshare = "all"\nuri = "s3://x/y"\n')
    settings, problems = from_pyproject(tmp_path)
    assert settings.memory.share == "fixes-and-stats" and settings.memory.uri == ""
    assert any("memory.share" in p and "share less" in p for p in problems) and any("memory.uri" in p for p in problems)
    (tmp_path / "pyproject.toml").write_text('[tool.fixloop.memory]\nshare = "fixes-and-stats"\n')
    user = dataclasses.replace(Settings(), memory=MemorySettings(share="fixes-only"))
    settings, problems = from_pyproject(tmp_path, user)
    assert settings.memory.share == "fixes-only" and any("memory.share" in p for p in problems)  # still no wider


def test_a_project_file_may_tighten_sharing(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.fixloop.memory]\nshare = "fixes-only"\n')
    assert from_pyproject(tmp_path) == (dataclasses.replace(Settings(), memory=MemorySettings(share="fixes-only")), [])
    everything = dataclasses.replace(Settings(), memory=MemorySettings(share="all"))
    (tmp_path / "pyproject.toml").write_text('[tool.fixloop.memory]\nshare = "fixes-and-stats"\n')
    assert from_pyproject(tmp_path, everything)[0].memory.share == "fixes-and-stats"


def test_the_sandbox_gets_no_cloud_credentials(monkeypatch) -> None:
    for k, v in {**SECRET_ENV, "AWS_SESSION_TOKEN": "session-token-123", "AWS_ENDPOINT_URL": "http://127.0.0.1:1",
                 "FIXLOOP_MEMORY": "s3://team/m", "GOOGLE_APPLICATION_CREDENTIALS": "/k.json",
                 "AZURE_STORAGE_KEY": "azkey-123456"}.items():
        monkeypatch.setenv(k, v)
    env = sandbox_env(sys.executable, Path("/runtime"))
    leaked = {k for k in env if k.startswith(("AWS_", "AZURE_", "GOOGLE_")) or k == "FIXLOOP_MEMORY"}
    assert not leaked and not any(v in env.values() for v in SECRET_ENV.values())


def test_opening_a_shared_memory_needs_no_network_until_used(tmp_path: Path) -> None:
    """Building the memory for a run (factory) connects nothing and imports no lancedb."""
    code = ("import sys; from pathlib import Path; from fixloop.application.config import MemorySettings; "
            "from fixloop.adapters.graph.factory import make_memory; "
            "m = make_memory(MemorySettings(uri='s3://team/m'), Path('/home/someone/shop')); "
            "print(m.project, type(m.store).__name__, 'lancedb' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": SERVER, "XDG_DATA_HOME": str(tmp_path)})
    assert out.stdout.split() == ["shop", "SharedStore", "False"], out.stderr
