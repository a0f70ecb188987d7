"""The shared memory on a real S3-compatible server (moto on 127.0.0.1): two machines with their own
caches share lessons; what leaves a machine is scrubbed; an endpoint that goes away costs nothing."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.shared import RemoteStore, SharedStore
from fixloop.adapters.mined.mine import mine

from .s3server import SECRET
from .shared_helpers import failure, learner, machine
from .test_learning import CINEMA, _cinema_report, _learn_fix

pytestmark = pytest.mark.e2e  # each test talks to a server process


def test_a_fix_learned_on_machine_a_is_recalled_on_machine_b(shared_uri: str, tmp_path: Path) -> None:
    a = machine(shared_uri, tmp_path / "a").open()
    _learn_fix(learner(a))
    assert a.outbox.pending() == 0  # pushed at the end of the run
    b = machine(shared_uri, tmp_path / "b").open()  # opening pulls what the team wrote
    lessons = learner(b, "cinema").recall(_cinema_report(), {"cinema/t.py": CINEMA})
    assert lessons and lessons[0].outcome == "fixed" and "if q >= LIMIT:" in lessons[0].summary
    assert lessons[0].meta["project"] == "shop"
    assert not a.notes and not b.notes


def test_fixes_only_keeps_unfixed_failures_and_operator_events_at_home(shared_uri: str, tmp_path: Path) -> None:
    a = machine(shared_uri, tmp_path / "a", share="fixes-only").open()
    _learn_fix(learner(a))
    a.add("failures", [failure("never fixed here")])
    a.sync()
    remote = RemoteStore(shared_uri, HashingEmbedder(64)).open()
    assert remote.count("failures") == 1 and remote.count("failures", "fixed = false") == 0
    assert remote.count("fixes") == 1 and remote.count("operator_stats") == 0
    everything = machine(shared_uri, tmp_path / "c", share="all").open()
    everything.add("failures", [failure("shared on purpose")])
    everything.sync()
    # a fresh handle: the first one may serve its cached version for up to the read-consistency interval
    remote = RemoteStore(shared_uri, HashingEmbedder(64)).open()
    assert remote.count("failures", "fixed = false") == 1


def test_nothing_private_reaches_the_bucket(shared_uri: str, tmp_path: Path, s3_server, monkeypatch) -> None:
    monkeypatch.setenv("USER", "alice")
    monkeypatch.setenv("HOME", "/home/alice")
    monkeypatch.setenv("SHOP_API_TOKEN", "tok-9f8e7d6c5b4a")
    text = 'File "/home/alice/work/shop/price.py", line 3: KeyError tok-9f8e7d6c5b4a at /srv/builds/alice/x.py'
    a = machine(shared_uri, tmp_path / "a", share="all").open()
    a.add("failures", [failure(text, project="/home/alice/work/shop", fixed=True)])
    report = a.sync()
    assert report["pushed"] == 1, report
    bucket = shared_uri.split("/")[2]
    blob = b"".join(s3_server.client().get_object(Bucket=bucket, Key=k)["Body"].read()
                    for k in s3_server.keys(bucket))
    for private in (b"alice", b"tok-9f8e7d6c5b4a", b"/home/", b"/srv/builds", SECRET.encode()):
        assert private not in blob, private
    row = RemoteStore(shared_uri, HashingEmbedder(64)).open().rows("failures")[0]
    assert row["project"] == "shop" and "~/work/shop/price.py" in row["text"] and "…/x.py" in row["text"]


def test_the_endpoint_going_away_mid_run_loses_nothing(shared_uri: str, tmp_path: Path, s3_server, caplog) -> None:
    a = machine(shared_uri, tmp_path / "a").open()
    s3_server.relay.stop()
    memory = learner(a)
    with caplog.at_level(logging.WARNING, logger="fixloop.adapters.memory"):
        _learn_fix(memory, run_id="run-1")
        _learn_fix(memory, run_id="run-2")
    assert len(a.notes) == 1 and "did not answer" in a.notes[0] and "AWS_ENDPOINT_URL" in a.notes[0]
    # two fixed failures, their fixes and the four operator events of their runs wait in the queue
    assert a.outbox.pending() == 8
    assert a.count("failures") == 2  # the run went on with the local copy
    assert SECRET not in caplog.text and SECRET not in a.notes[0]
    s3_server.relay.start()
    report = a.sync()
    assert report["pushed"] == 8 and report["pending"] == 0 and "error" not in report
    b = machine(shared_uri, tmp_path / "b").open()
    assert b.count("failures") == 2 and b.count("fixes") == 2


def test_push_and_pull_move_one_project(shared_uri: str, tmp_path: Path) -> None:
    a = machine(shared_uri, tmp_path / "a", share="all").open()
    # Rows that never went through the queue (imported from a private store, say) go with push --project.
    a.upsert("failures", [failure("shop one", project="shop"), failure("cinema one", project="cinema")])
    assert a.outbox.pending() == 0
    assert a.push_project("shop") == 1 and a.push_project("shop") == 0  # by id: never twice
    remote = RemoteStore(shared_uri, HashingEmbedder(64)).open()
    assert [r["project"] for r in remote.rows("failures")] == ["shop"]
    assert a.push_project("cinema") == 1
    b = machine(shared_uri, tmp_path / "b").open()
    assert b.count("failures") == 2
    b.delete("failures", "project = 'shop'")  # a cache that lost rows (evicted) gets them back
    assert b.pull_project("cinema") == 0 and b.pull_project("shop") == 1 and b.count("failures") == 2


def test_forgetting_on_one_machine_sticks_on_every_machine(shared_uri: str, tmp_path: Path) -> None:
    a = machine(shared_uri, tmp_path / "a").open()
    _learn_fix(learner(a))
    b = machine(shared_uri, tmp_path / "b").open()
    assert learner(b, "cinema").recall(_cinema_report(), {"cinema/t.py": CINEMA})[0].outcome == "fixed"
    (row,) = a.rows("failures")
    assert learner(a).forget(row["id"]) == 2  # the failure and its fix; pushed at once
    remote = RemoteStore(shared_uri, HashingEmbedder(64)).open()
    assert remote.count("failures") == 0 and remote.count("fixes") == 0 and remote.count("forgotten") == 2
    b = machine(shared_uri, tmp_path / "b")  # the same cache; a new handle sees the shared store's latest version
    assert b.sync()["pulled"] == 0 and b.count("failures") == 0 and b.count("fixes") == 0
    assert learner(b, "cinema").recall(_cinema_report(), {"cinema/t.py": CINEMA}) == ()
    # Neither a later pull nor a machine that had not heard of it yet brings the rows back.
    c = machine(shared_uri, tmp_path / "c").open()
    assert c.count("failures") == 0 and a.sync()["pulled"] == 0 and a.count("failures") == 0
    stale = machine(shared_uri, tmp_path / "stale", share="all")
    stale.open()
    stale.upsert("failures", [dict(row)])  # a copy made before the forget, pushed on purpose
    assert stale.push_project(row["project"]) == 0
    assert RemoteStore(shared_uri, HashingEmbedder(64)).open().count("failures") == 0


def _warned_and_mined(store: SharedStore) -> tuple[int, int]:
    """How many memory warnings the shared fix gives in similar code, and how many templates it yields."""
    memory = learner(store)
    memory.min_pattern_count = 1
    warnings = memory.patterns_in("lib/g.py", "def g(n, cap):\n    if n > cap:\n        return 1\n    return 0\n")
    return len(warnings), len(mine(store, min_support=1))


def test_a_fix_rejected_on_one_machine_is_no_longer_offered_on_the_others(shared_uri: str, tmp_path: Path) -> None:
    a = machine(shared_uri, tmp_path / "a").open()
    _learn_fix(learner(a))
    b = machine(shared_uri, tmp_path / "b").open()
    assert _warned_and_mined(b) == (1, 1)
    learner(a).record_decision("run-1", "shop/price.py#0", accepted=False)  # after the fix was shared
    remote = RemoteStore(shared_uri, HashingEmbedder(64)).open()
    assert remote.count("verdicts") == 1 and remote.count("decisions") == 0  # the default: the review stays home
    assert remote.count("operator_stats", "source = 'review'") == 1  # ... and its operator event leaves, as a count
    b = machine(shared_uri, tmp_path / "b")  # the same cache, a new handle: its next pull
    assert b.sync()["pulled"] == 2 and b.rows("fixes")[0]["decision"] == "rejected"  # the verdict and the count
    assert _warned_and_mined(b) == (0, 0)
    assert b.outbox.pending() == 0 and b.sync()["pushed"] == 0  # applying a verdict does not send it back
    c = machine(shared_uri, tmp_path / "c").open()  # a machine that pulls the fix and its verdict at once
    assert c.rows("fixes")[0]["decision"] == "rejected" and _warned_and_mined(c) == (0, 0)
    learner(a).record_decision("run-1", "shop/price.py#0", accepted=True)  # changed their mind: the latest wins
    b = machine(shared_uri, tmp_path / "b")
    b.sync()
    assert b.rows("fixes")[0]["decision"] == "mixed" and _warned_and_mined(b) == (1, 1)
    (fix,) = a.rows("fixes")
    assert learner(a).forget(fix["id"]) == 3 and a.count("verdicts") == 0  # the fix, its two reviews, its verdicts


@pytest.mark.parametrize("problem", ["no_bucket", "bad_credentials", "newer_schema", "http_elsewhere"])
def test_a_bad_shared_store_is_named_and_nothing_is_lost(problem: str, shared_uri: str, tmp_path: Path,
                                                          s3_server, monkeypatch, caplog) -> None:
    uri = shared_uri
    if problem == "no_bucket":
        uri = "s3://no-such-bucket-here/team"
    elif problem == "bad_credentials":
        auth = s3_server.__class__(auth_actions=1)  # this server checks keys after the bucket exists
        try:
            auth.bucket("locked")
            for key, value in auth.env(key_id="AKIAWRONGWRONGWRONG1", secret="wrong-secret-" + "x" * 20).items():
                monkeypatch.setenv(key, value)
            _check_refused(uri="s3://locked/team", tmp_path=tmp_path, words="AWS_ACCESS_KEY_ID", caplog=caplog,
                           secret="wrong-secret-" + "x" * 20)
        finally:
            auth.close()
        return
    elif problem == "newer_schema":
        from fixloop.adapters.memory import schema

        remote = RemoteStore(uri, HashingEmbedder(64)).open()
        remote._set_meta({"schema_version": str(schema.SCHEMA_VERSION + 1)})
    else:
        monkeypatch.setenv("AWS_ENDPOINT_URL", "http://storage.example.com:9000")
    words = {"no_bucket": "memory.uri", "newer_schema": "memory.uri", "http_elsewhere": "AWS_ENDPOINT_URL"}[problem]
    _check_refused(uri, tmp_path, words, caplog, SECRET)


def _check_refused(uri: str, tmp_path: Path, words: str, caplog, secret: str) -> None:
    with caplog.at_level(logging.WARNING, logger="fixloop.adapters.memory"):
        a = machine(uri, tmp_path / "a").open()
        memory = learner(a)
        _learn_fix(memory)
        lessons = memory.recall(_cinema_report(), {"cinema/t.py": CINEMA})
    assert lessons, "the run goes on with the local copy"
    assert len(a.notes) == 1 and words in a.notes[0], a.notes
    # kept, and queued for when it is fixed: the failure, its fix, and the run's two operator events
    assert a.outbox.pending() == 4 and a.count("fixes") == 1
    assert secret not in caplog.text and secret not in a.notes[0]
