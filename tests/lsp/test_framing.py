"""Raw bytes at the real language server: bad framing never crashes it with MemoryError, never wedges it
and never ends it. It says why on stderr, skips the broken message and answers the next well-formed
request; its memory stays small whatever length the client claims."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fixloop.lsp.framing import MAX_BODY, BadFraming, FramedInput

LAUNCH = Path(__file__).with_name("launch.py")
ROOT = Path(__file__).resolve().parents[2]
EXIT_SECONDS = 10.0
MAX_RSS_MB = 600  # the server's own imports are about 100-200 MB; a claimed length must add nothing


def frame(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


def request(rid: int, method: str, params: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()


INITIALIZE = request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})
PROBE = request(2, "workspace/executeCommand", {"command": "fixloop.cancel", "arguments": [{}]})


class Server:
    """The real server over pipes, with its framed replies collected from stdout."""

    def __init__(self, tmp_path: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "server"), "TMPDIR": str(tmp_path)}
        env.pop("ANTHROPIC_API_KEY", None)
        self.proc = subprocess.Popen([sys.executable, str(LAUNCH), "--stdio"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
        self.replies: dict[int, dict] = {}
        self.stderr = b""
        self.rusage: os.struct_rusage | None = None
        self.status: int | None = None
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                if m := re.match(rb"Content-Length: (\d+)", line):
                    length = int(m.group(1))
            if not line or length is None:
                return
            message = json.loads(out.read(length))
            if "id" in message and "method" not in message:
                self.replies[message["id"]] = message

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send(self, data: bytes, close: bool = False) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
            if close:
                self.proc.stdin.close()
        except BrokenPipeError:
            pass

    def answered(self, rid: int, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and rid not in self.replies and self.exited() is None:
            time.sleep(0.05)
        return rid in self.replies

    def exited(self) -> int | None:
        """The exit status once the server is gone; its peak RSS is kept from wait4."""
        if self.status is None:
            pid, status, rusage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:
                self.status, self.rusage = os.waitstatus_to_exitcode(status), rusage
                self.proc.returncode = self.status
        return self.status

    def wait_exit(self, seconds: float) -> int | None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self.exited() is None:
            time.sleep(0.05)
        return self.exited()

    def peak_rss_mb(self) -> float:
        if self.rusage is None:
            text = Path(f"/proc/{self.proc.pid}/status").read_text()
            return int(re.search(r"VmHWM:\s+(\d+)", text).group(1)) / 1024  # type: ignore[union-attr]
        return self.rusage.ru_maxrss / 1024

    def stop(self) -> None:
        if self.exited() is None:
            self.proc.kill()
            self.wait_exit(10)


@pytest.fixture
def server(tmp_path: Path):
    s = Server(tmp_path)
    yield s
    s.stop()


BAD = {
    "huge-length": frame(b"", 99999999999),
    "over-the-cap": frame(b"", MAX_BODY + 1),
    "missing-length": b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + PROBE,
    "non-numeric": b"Content-Length: abc\r\n\r\n" + PROBE,
    "negative": b"Content-Length: -5\r\n\r\n" + PROBE,
    "zero": b"Content-Length: 0\r\n\r\n" + PROBE,
    "shorter-than-body": frame(PROBE, len(PROBE) - 7),
    "no-header-at-all": PROBE + b"\r\n",
    "endless-header-line": b"X-Junk: " + b"a" * 100_000 + b"\r\n\r\n",
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_framing_is_skipped_and_the_next_request_answered(server: Server, case: str) -> None:
    server.send(frame(INITIALIZE))
    assert server.answered(1, 120), server.stderr.decode(errors="replace")
    # The bad bytes, then a well-formed request: it is answered, and so is the one after it.
    server.send(BAD[case] + frame(PROBE))
    assert server.answered(2, EXIT_SECONDS), f"{case}: {server.stderr.decode(errors='replace')[-2000:]}"
    server.send(frame(PROBE.replace(b'"id": 2', b'"id": 3')))
    assert server.answered(3, EXIT_SECONDS) and server.exited() is None
    assert server.replies[2]["result"] == {"cancelled": False}
    server.stop()
    time.sleep(0.2)  # let the stderr reader drain
    stderr = server.stderr.decode(errors="replace")
    # "shorter-than-body" hands pygls a cut body first (an unreadable JSON message, which it survives).
    assert "bad message framing" in stderr and "skipped to the next message" in stderr, stderr
    assert "MemoryError" not in stderr
    assert server.peak_rss_mb() < MAX_RSS_MB


def test_a_length_longer_than_the_body_then_eof_exits(server: Server) -> None:
    server.send(frame(INITIALIZE))
    assert server.answered(1, 120), server.stderr.decode(errors="replace")
    server.send(frame(PROBE, 50_000_000), close=True)
    assert server.wait_exit(EXIT_SECONDS) is not None
    time.sleep(0.2)
    stderr = server.stderr.decode(errors="replace")
    assert "short of the announced Content-Length 50000000" in stderr and "MemoryError" not in stderr
    assert server.peak_rss_mb() < MAX_RSS_MB


def test_well_formed_messages_still_work_one_byte_at_a_time(server: Server) -> None:
    for byte in frame(INITIALIZE):
        server.send(bytes([byte]))
    assert server.answered(1, 120), server.stderr.decode(errors="replace")
    server.send(frame(PROBE) + b"content-length:  " + str(len(PROBE)).encode() + b"\r\n\r\n" + PROBE.replace(b'"id": 2', b'"id": 3'))
    assert server.answered(2, 30) and server.answered(3, 30)
    assert server.replies[2]["result"] == {"cancelled": False}


# ---- the reader alone, on in-memory streams -------------------------------------------------------
class _Stream:
    def __init__(self, data: bytes) -> None:
        import io

        self.buf = io.BufferedReader(io.BytesIO(data))  # type: ignore[arg-type]

    def readline(self, size: int = -1) -> bytes:
        return self.buf.readline(size)

    def read(self, size: int = -1) -> bytes:
        return self.buf.read(size)


def _messages(data: bytes) -> tuple[list[bytes], FramedInput]:
    reader = FramedInput(_Stream(data))  # type: ignore[arg-type]
    got = []
    while line := reader.readline():
        assert line.startswith(b"Content-Length: ")
        assert reader.readline() == b"\r\n"
        got.append(reader.read(int(line.split(b":")[1])))
    return got, reader


def test_the_reader_hands_pygls_canonical_messages_and_skips_the_broken_ones() -> None:
    data = (b"content-length: 2\r\nContent-Type: x\r\n\r\n{}" + frame(b"[1]") + b"Content-Length: 1e3\r\n\r\n{}"
            + frame(b'{"a": "Content-Length: 9\\r\\n"}') + b"no header\r\n" + frame(b"[2]", 2) + frame(b"[3]"))
    got, reader = _messages(data)
    # A header inside a JSON string is text (its line break is written \r\n), never a place to resume.
    assert got == [b"{}", b"[1]", b'{"a": "Content-Length: 9\\r\\n"}', b"[2", b"[3]"]
    assert reader.skipped == 3 and reader.ended and reader.read(10) == b""


def test_a_header_split_across_a_huge_broken_line_is_still_found() -> None:
    data = b"X-Junk: " + b"a" * 20_000 + frame(b"[1]")
    assert _messages(data)[0] == [b"[1]"]
    data = b"a" * (8 * 1024 - 5) + frame(b"[1]")  # "Content-Length" straddles two bounded reads
    assert _messages(data)[0] == [b"[1]"]


def test_the_reader_refuses_an_oversized_length_without_reading_it() -> None:
    reader = FramedInput(_Stream(frame(b"x" * 100)), max_body=10)  # type: ignore[arg-type]
    with pytest.raises(BadFraming, match="over the 10 byte limit"):
        reader._next_body()
