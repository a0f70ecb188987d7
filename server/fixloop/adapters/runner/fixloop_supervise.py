"""The supervisor of a sandboxed pytest run (`python -m fixloop_supervise <pytest args>`): the only process
that writes the run's report to the host, and not the process that runs the code under test.

It runs inside the sandbox under the project's interpreter, so it uses only the standard library. It makes
a fresh key, forks, and the child (with the host's report channel closed) runs `python -m pytest` with the
report plugin armed with the key; the supervisor is non-dumpable, so the run's processes cannot open its
descriptors or read its memory through /proc: every record the plugin writes is sealed (a sequence number and an
HMAC-SHA256 of it and the record). The supervisor opens each line, forwards the records whose seal is good,
counts the lines that are not, waits for the child, and ends the report with its own record:

    {"event": "supervised", "returncode": 0, "signal": null, "sealed": 12, "unsealed": 0, "lost": false,
     "digest": "<sha256 of every line it forwarded>"}

Then it exits as the child did. The host believes a pass only with that record as the last line, a digest
that matches what came before it (anything another process wrote into the channel breaks it), no unsealed
line, no lost record, and the plugin's own end record. Code under test that writes to every descriptor it has reaches only
the plugin's pipe, where an unsealed line is counted, never forwarded; code that replaces the process
(`exec`) or ends it before pytest is done leaves no sealed end record. What can still be forged is code that
finds the key in its own process (the plugin's memory); see docs/sandbox.md, "When a pass is believed".

The warm worker relays its children's reports through the same `Opener`.
"""

import hmac
import json
import os
import select
import signal
import sys
import time
from hashlib import sha256 as _sha256

KEY_BYTES = 64  # a whole SHA-256 block: the HMAC pads in memory have no telltale zero padding
MAX_LINE = 25_000_000  # one record at most (the host's whole report cap is 20 MB)
DRAIN_SECONDS = 1.0  # after the child ended, what is still in the pipe is read for this long at most


def _encoder():
    """`json.dumps` with the C encoder bound now (the module's later state does not matter)."""
    try:
        from json.encoder import c_make_encoder, encode_basestring_ascii

        if c_make_encoder is None:
            raise ImportError("no C encoder")

        def default(value):
            raise TypeError("not JSON: %s" % type(value).__name__)

        encode = c_make_encoder(None, default, encode_basestring_ascii, None, ": ", ", ", False, False, True)
        join = "".join
        return lambda obj: join(encode(obj, 0))
    except (ImportError, TypeError):  # a Python without the C accelerator
        return json.JSONEncoder().encode


def sealed_writer(fd, key):
    """The one function that writes records: `seq MAC json` per line, HMAC-SHA256 by hand with `_sha256`
    (a C constructor bound at import; its objects' methods cannot be replaced). Without a key (a run no
    supervisor armed) the lines go unsealed and the supervisor would forward none of them; without `fd`,
    nowhere."""
    encode, write = _encoder(), os.write
    if key:
        key = key + bytes(64 - len(key)) if len(key) <= 64 else _sha256(key).digest() + bytes(32)
        inner, outer = bytes(b ^ 0x36 for b in key), bytes(b ^ 0x5C for b in key)
    count = [0]

    def put(obj):
        if fd is None:
            return
        body = encode(obj).encode("utf-8")
        if key:
            head = str(count[0]).encode("ascii")
            count[0] += 1
            mac = _sha256(outer + _sha256(inner + head + b" " + body).digest()).hexdigest().encode("ascii")
            data = head + b" " + mac + b" " + body + b"\n"
        else:
            data = body + b"\n"
        try:
            while data:
                data = data[write(fd, data):]
        except OSError:  # the supervisor stopped reading: nothing more to say
            pass

    return put


class Opener:
    """Opens sealed lines in order. `feed(chunk)` returns the records (JSON bytes, one per line) whose seal is
    good; `unsealed` counts the other lines, `lost` says a sealed record never arrived (a gap in the
    sequence: a line the plugin wrote was cut or swallowed)."""

    def __init__(self, key):
        self.key = key
        self.next = 0
        self.sealed = 0
        self.unsealed = 0
        self.lost = False
        self.digest = _sha256()  # of every record forwarded, each with its line break: the host checks it
        self._partial = bytearray()

    def feed(self, chunk):
        out, start = [], 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            self._partial += chunk[start:end]
            body = self._open(bytes(self._partial))
            self._partial = bytearray()
            if body is not None:
                self.digest.update(body + b"\n")
                out.append(body)
            start = end + 1
        self._partial += chunk[start:]
        if len(self._partial) > MAX_LINE:  # never a record: drop it rather than hold it
            self._partial = bytearray()
            self.unsealed += 1
        return out

    def finish(self):
        """The end of the stream: a line without its line break is not a record."""
        if self._partial:
            self.unsealed += 1
            self._partial = bytearray()

    def _open(self, line):
        parts = line.split(b" ", 2)
        if len(parts) != 3 or not parts[0].isdigit() or len(parts[0]) > 12:
            self.unsealed += 1
            return None
        seq, mac, body = int(parts[0]), parts[1], parts[2]
        good = hmac.new(self.key, parts[0] + b" " + body, "sha256").hexdigest().encode("ascii")
        if not hmac.compare_digest(mac, good):
            self.unsealed += 1
            return None
        if seq != self.next:
            self.lost = True  # a record before this one is missing (or came twice)
        self.next = seq + 1
        self.sealed += 1
        return body

    def record(self, status):
        """The supervisor's closing record for a wait status (None: the child could not be waited for)."""
        returncode = sig = None
        if status is not None and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
        elif status is not None:
            returncode = os.WEXITSTATUS(status)
        return ('{"event": "supervised", "returncode": %s, "signal": %s, "sealed": %d, "unsealed": %d, '
                '"lost": %s, "digest": "%s"}\n' % (_num(returncode), _num(sig), self.sealed, self.unsealed,
                                                   "true" if self.lost else "false",
                                                   self.digest.hexdigest())).encode("ascii")


def _num(value):
    return "null" if value is None else str(int(value))


def _write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def _child(report_w, key, args):
    """Becomes `python -m pytest args` with the plugin armed; never returns. Everything after the plugin is
    armed is what `python -m pytest` does, exit status and interpreter shutdown included."""
    os.environ["FIXLOOP_REPORT_FD"] = str(report_w)
    import fixloop_report  # takes the report descriptor from the environment (non-inheritable at once)

    fixloop_report.arm(bytes(key))
    key[:] = bytes(len(key))  # this process's copy of the supervisor's key: only the plugin keeps one
    import runpy

    sys.argv[:] = ["pytest"] + list(args)
    runpy.run_module("pytest", run_name="__main__", alter_sys=True)
    raise SystemExit(0)


def _prctl():
    """libc's prctl through ctypes, or None (an interpreter without ctypes)."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None


def _dumpable(prctl, on):
    """PR_SET_DUMPABLE: off, the run's other processes (the same user) cannot open this one's /proc entries:
    its descriptors (the host's channel) and its memory (the key). Best effort: without ctypes the closing
    record's digest still shows anything written into the channel."""
    if prctl is not None:
        prctl(4, 1 if on else 0, 0, 0, 0)


def relay(read_fd, opener, out_fd, pid, deadline_after_exit=DRAIN_SECONDS):
    """Forward the sealed records of `read_fd` to `out_fd` as they come, until the child `pid` ended and the
    pipe is drained (or an orphan kept it open for `deadline_after_exit`); the child's wait status."""
    status = None
    ended_at = None
    open_pipe = True
    while True:
        if open_pipe:
            ready, _, _ = select.select([read_fd], [], [], 0.05)
            if ready:
                chunk = os.read(read_fd, 1 << 16)
                if chunk:
                    for body in opener.feed(chunk):
                        _write_all(out_fd, body + b"\n")
                else:
                    open_pipe = False
                    opener.finish()
            elif ended_at is not None:
                break  # nothing more came once the child had ended: what it wrote is all in
        else:
            time.sleep(0.01)
        if status is None:
            done, status_now = os.waitpid(pid, os.WNOHANG)
            if done:
                status, ended_at = status_now, time.monotonic()
        if status is not None and (not open_pipe or time.monotonic() - ended_at > deadline_after_exit):
            break
    return status


def main():
    try:
        out = int(os.environ.pop("FIXLOOP_REPORT_FD", ""))
        os.set_inheritable(out, False)
    except (ValueError, OSError):
        sys.stderr.write("fixloop_supervise: no report descriptor\n")
        os._exit(75)
    key = bytearray(os.urandom(KEY_BYTES))
    read_fd, write_fd = os.pipe()
    prctl = _prctl()
    # Off before the fork (no moment when the supervisor is open), on again in the child: pytest keeps a normal
    # /proc/self (its own descriptors, its environment) and its subprocesses can be inspected as usual.
    _dumpable(prctl, False)
    pid = os.fork()
    if pid == 0:
        _dumpable(prctl, True)
        os.close(read_fd)
        os.close(out)  # the code under test never holds the host's channel
        _child(write_fd, key, sys.argv[1:])
    os.close(write_fd)
    opener = Opener(bytes(key))
    status = relay(read_fd, opener, out, pid)
    _write_all(out, opener.record(status))
    os.close(out)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
        except (OSError, ValueError):
            pass
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status))


if __name__ == "__main__":
    main()
