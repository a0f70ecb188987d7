"""The harness itself: an honest project is fixed as root and as an unprivileged user, and the
host-side evidence is empty; the same check sees a file that a run really plants outside."""

from __future__ import annotations

from .harness import Host, run_fix

BUGGY = "def inc(x):\n    return x - 1\n"
TEST = "from calc import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n"


def test_an_honest_project_is_fixed_without_touching_the_host(host: Host, backend: str) -> None:
    host.write("calc.py", BUGGY)
    host.write("tests/test_calc.py", TEST)
    host.snapshot()
    done = run_fix(host, backend, ["--dry-run"])
    assert done.summary is not None, done.stderr
    assert done.summary["status"] == "fixed", done.stderr
    assert host.evidence() == []


def test_evidence_sees_a_planted_file(host: Host) -> None:
    host.snapshot()
    (host.home / ".bashrc").write_text("planted\n")
    (host.outside / "new").write_text("x")
    assert host.evidence() == [f"created {host.outside / 'new'}", f"changed {host.home / '.bashrc'}"]
