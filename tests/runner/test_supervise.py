"""The sealed report channel: the plugin's writer seals each record with the run's key and its place in the
sequence; the supervisor's `Opener` forwards exactly the records sealed with that key, in order, and counts
everything else. Code under test that replaces the JSON encoder or `os.write` after the writer was made
changes nothing it writes."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from fixloop.adapters.runner import fixloop_supervise
from fixloop.adapters.runner.fixloop_supervise import Opener, sealed_writer

KEY = bytes(range(32))
RECORDS = [{"event": "start", "nodeid": "t::a"}, {"event": "result", "nodeid": "t::a", "outcome": "passed"},
           {"event": "end", "exitstatus": 0}]


def written(key: bytes, records: list[dict[str, object]]) -> bytes:
    read, write = os.pipe()
    try:
        put = sealed_writer(write, key)
        for record in records:
            put(record)
        os.close(write)
        data = b""
        while chunk := os.read(read, 1 << 16):
            data += chunk
        return data
    finally:
        os.close(read)


def opened(opener: Opener, data: bytes) -> list[dict[str, object]]:
    out = [json.loads(body) for body in opener.feed(data)]
    opener.finish()
    return out


def test_sealed_records_open_in_order() -> None:
    opener = Opener(KEY)
    assert opened(opener, written(KEY, RECORDS)) == RECORDS
    assert (opener.sealed, opener.unsealed, opener.lost) == (3, 0, False)


def test_records_split_across_reads_still_open() -> None:
    data, opener, out = written(KEY, RECORDS), Opener(KEY), []
    for i in range(0, len(data), 7):
        out += [json.loads(b) for b in opener.feed(data[i:i + 7])]
    assert out == RECORDS and opener.unsealed == 0


@pytest.mark.parametrize("forged", [
    b'{"event": "result", "nodeid": "t::b", "outcome": "passed"}\n',  # what a blind writer sends
    b'0 ' + b'0' * 64 + b' {"event": "end", "exitstatus": 0}\n',  # a seal it guessed
    b"garbage without a line break",
])
def test_lines_not_sealed_with_the_key_are_counted_never_forwarded(forged: bytes) -> None:
    opener = Opener(KEY)
    assert opened(opener, written(KEY, RECORDS[:2]) + forged) == RECORDS[:2]
    assert opener.unsealed == 1 and not opener.lost


def test_another_runs_key_seals_nothing() -> None:
    opener = Opener(KEY)
    assert opened(opener, written(bytes(32), RECORDS)) == []
    assert opener.unsealed == 3


def test_a_swallowed_or_replayed_record_is_lost() -> None:
    lines = written(KEY, RECORDS).splitlines(keepends=True)
    for data in (lines[0] + lines[2], lines[0] + lines[1] + lines[1] + lines[2]):
        opener = Opener(KEY)
        opened(opener, data)
        assert opener.lost, data


def test_a_body_changed_after_sealing_is_not_forwarded() -> None:
    data = written(KEY, RECORDS[1:2]).replace(b'"passed"', b'"failed"')
    opener = Opener(KEY)
    assert opened(opener, data) == [] and opener.unsealed == 1


def test_replacing_the_encoder_or_os_write_later_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    read, write = os.pipe()
    put = sealed_writer(write, KEY)  # made before the code under test runs, as the plugin's is
    spied: list[object] = []
    monkeypatch.setattr(json, "dumps", lambda obj, **kw: spied.append(obj) or '{"outcome": "passed"}')
    monkeypatch.setattr(json.encoder, "c_make_encoder", lambda *a: spied.append(a))
    monkeypatch.setattr(os, "write", lambda fd, data: spied.append(data) or len(data))
    put({"event": "result", "nodeid": "t::a", "outcome": "failed"})
    monkeypatch.undo()
    os.close(write)
    data = os.read(read, 1 << 16)
    os.close(read)
    assert spied == []
    assert opened(Opener(KEY), data) == [{"event": "result", "nodeid": "t::a", "outcome": "failed"}]


def test_the_closing_record_says_how_pytest_ended() -> None:
    opener = Opener(KEY)
    forwarded = opener.feed(written(KEY, RECORDS) + b"forged\n")
    digest = hashlib.sha256(b"".join(body + b"\n" for body in forwarded)).hexdigest()
    assert json.loads(opener.record(3 << 8)) == {"event": "supervised", "returncode": 3, "signal": None,
                                                  "sealed": 3, "unsealed": 1, "lost": False, "digest": digest}
    assert json.loads(opener.record(9))["signal"] == 9  # a wait status for SIGKILL


def test_an_overlong_line_is_dropped_not_held(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fixloop_supervise, "MAX_LINE", 100)
    opener = Opener(KEY)
    assert opener.feed(b"x" * 150) == [] and opener.unsealed == 1
    assert opened(opener, b"\n" + written(KEY, RECORDS[:1])) == RECORDS[:1]
