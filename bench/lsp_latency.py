"""Language-server numbers, measured over real stdio, printed side by side:

1. `initialize`: request -> response, and process start -> response (target < 0.5 s for the request);
2. safety + memory diagnostics after a didChange on a 2,000-line file: p50/p95 latency until the
   version's list is published (target p95 < 50 ms), with debounce 0 and 20 ms;
3. server RSS over 10,000 didChange events (target: flat).

Run: PYTHONPATH=server python bench/lsp_latency.py [--changes 10000] [--samples 200] [--smoke]
(`--smoke`: one start, 20 samples, 1,000 changes: proves the bench still runs, in about 20 s)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_lsp import client_capabilities

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = ROOT / "tests" / "lsp" / "launch.py"
HEAVY = ("lancedb", "anthropic", "tree_sitter_python", "bandit", "pyarrow", "pandas")


def big_file(lines: int = 2000) -> str:
    block = ("import os\nimport subprocess\n\n\ndef handler_{i}(cmd, quantity):\n    if quantity > LIMIT:\n"
             "        os.system(cmd)\n    total = quantity * 2\n    return subprocess.run(cmd, shell=True)\n\n")
    out, i = [], 0
    while sum(s.count("\n") for s in out) < lines:
        out.append(block.format(i=i))
        i += 1
    return "LIMIT = 10\n" + "".join(out)


class Bench:
    """A minimal JSON-RPC client over the server's stdio: frames and json.loads, nothing else, so the
    numbers are the server's (a full LSP client would spend more than the server turning hundreds of
    diagnostics into objects, on the same two cores)."""

    def __init__(self, workspace: Path, debounce_ms: int, memory_file: Path) -> None:
        self.workspace, self.debounce_ms, self.memory_file = workspace, debounce_ms, memory_file
        self.proc: asyncio.subprocess.Process | None = None
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.next_id = 0
        self.waiters: list[tuple[int, int, asyncio.Future[float]]] = []
        self.seen: dict[int, int] = {}
        self.reader: asyncio.Task[None] | None = None

    async def start(self) -> tuple[float, float]:
        """(initialize request -> response, spawn -> response); `self.init_cpu` is the server's CPU
        time spent between the request and the response (less sensitive to a busy machine)."""
        env = {**os.environ, "PYTHONPATH": str(ROOT / "server"), "FIXLOOP_TEST_MEMORY": str(self.memory_file)}
        spawned = time.perf_counter()
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, str(LAUNCH), "--stdio", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env, limit=2**26)
        self.reader = asyncio.create_task(self._read())
        with contextlib.suppress(Exception):  # any answer (method not found) means the server is reading
            await self.request("fixloop/ping", None)
        caps = client_capabilities("visual-studio-code")
        from pygls.protocol import default_converter
        raw_caps = default_converter().unstructure(caps)
        cpu = self.cpu_seconds()
        sent = time.perf_counter()
        await self.request("initialize", {
            "processId": os.getpid(), "rootUri": self.workspace.as_uri(),
            "capabilities": raw_caps,
            "initializationOptions": {"settings": {"diagnostics": {"debounce_ms": self.debounce_ms}}}})
        done = time.perf_counter()
        self.init_cpu = self.cpu_seconds() - cpu
        self.notify("initialized", {})
        return done - sent, done - spawned

    def _write(self, message: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = fut
        self._write({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return await asyncio.wait_for(fut, 60)

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        out = self.proc.stdout
        while True:
            length = 0
            while True:
                line = await out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            message = json.loads(await out.readexactly(length))
            if "method" not in message:
                fut = self.pending.pop(message.get("id"), None)
                if fut is not None and not fut.done():
                    if "error" in message:
                        fut.set_exception(RuntimeError(message["error"].get("message")))
                    else:
                        fut.set_result(message.get("result"))
            elif "id" in message:  # a request from the server: configuration, progress tokens
                result: Any = [None] * len(message["params"].get("items", [])) \
                    if message["method"] == "workspace/configuration" else None
                self._write({"jsonrpc": "2.0", "id": message["id"], "result": result})
            elif message["method"] == "textDocument/publishDiagnostics":
                got = message["params"].get("version")
                if got is None:
                    continue
                self.seen[got] = self.seen.get(got, 0) + 1
                for version, needed, fut in list(self.waiters):
                    if version == got and self.seen[version] >= needed and not fut.done():
                        fut.set_result(time.perf_counter())

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def wait(self, version: int, publishes: int) -> asyncio.Future[float]:
        fut: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        if self.seen.get(version, 0) >= publishes:
            fut.set_result(time.perf_counter())
        self.waiters.append((version, publishes, fut))
        return fut

    def open(self, uri: str, text: str) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                               "text": text}})

    def edit(self, uri: str, version: int, start: tuple[int, int], end: tuple[int, int], new: str) -> None:
        rng = {"start": {"line": start[0], "character": start[1]}, "end": {"line": end[0], "character": end[1]}}
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"range": rng, "text": new}]})

    def change(self, uri: str, version: int, line: int, old_len: int, new: str) -> None:
        self.edit(uri, version, (line, 0), (line, old_len), new)

    async def stop(self) -> None:
        assert self.proc is not None
        await self.request("shutdown", None)
        self.notify("exit", None)
        await asyncio.wait_for(self.proc.wait(), 30)
        if self.reader is not None:
            self.reader.cancel()


async def initialize_times(ws: Path, memory: Path, runs: int) -> tuple[list[float], list[float], list[float]]:
    requests, totals, cpus = [], [], []
    for _ in range(runs):
        b = Bench(ws, 0, memory)
        request, total = await b.start()
        requests.append(request)
        totals.append(total)
        cpus.append(b.init_cpu)
        await b.stop()
    return requests, totals, cpus


async def latency(ws: Path, memory: Path, debounce_ms: int, samples: int, moving: bool) -> tuple[list[float], float]:
    """Typing in a line (`moving=False`: one finding changes), or inserting and removing a line near the
    top (`moving=True`: every finding moves, the safety rules' and the memory's); the time is until the
    version's one list of diagnostics is published."""
    b = Bench(ws, debounce_ms, memory)
    await b.start()
    uri = (ws / "pkg" / "big.py").as_uri()
    text = (ws / "pkg" / "big.py").read_text()
    b.open(uri, text)
    await asyncio.wait_for(b.wait(1, 1), 60)  # first publish: grammar and rules loaded
    lines = text.splitlines()
    out = []
    cpu = b.cpu_seconds()
    for i in range(samples):
        version = i + 2
        sent = time.perf_counter()
        if moving:
            b.edit(uri, version, (1, 0), (1, 0) if i % 2 == 0 else (2, 0), "\n" if i % 2 == 0 else "")
        else:
            line = 7 + 10 * (i % 150)  # an `os.system(cmd)` line: its finding's end column changes
            old = lines[line]
            new = old.replace("cmd)", "cmd )") if "cmd )" not in old else old.replace("cmd )", "cmd)")
            lines[line] = new
            b.change(uri, version, line, len(old), new)
        got = await asyncio.wait_for(b.wait(version, 1), 30)
        out.append((got - sent) * 1000)
    cpu_ms = (b.cpu_seconds() - cpu) * 1000 / samples
    await b.stop()
    return out, cpu_ms


async def memory_growth(ws: Path, memory: Path, changes: int) -> list[tuple[int, float]]:
    b = Bench(ws, 0, memory)
    await b.start()
    uri = (ws / "pkg" / "big.py").as_uri()
    text = (ws / "pkg" / "big.py").read_text()
    b.open(uri, text)
    await asyncio.wait_for(b.wait(1, 1), 60)
    lines = text.splitlines()
    series = [(0, b.rss_mb())]
    version = 1
    for i in range(changes):
        version += 1
        line = 5 + 10 * (i % 150)
        old = lines[line]
        new = old + " " if not old.endswith(" ") else old.rstrip()
        lines[line] = new
        b.change(uri, version, line, len(old), new)
        if (i + 1) % 1000 == 0:  # a request answers after every earlier notification was handled
            await b.request("workspace/executeCommand", {"command": "fixloop.cancel", "arguments": [{}]})
            await asyncio.sleep(0.3)  # and the diagnostics threads finish the last check
            series.append((i + 1, b.rss_mb()))
    await b.stop()
    return series


def p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--changes", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--inits", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="a small run that proves the bench works")
    args = parser.parse_args()
    if args.smoke:
        args.changes, args.samples, args.inits = 1000, 20, 1
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        (ws / "pkg").mkdir(parents=True)
        (ws / "pkg" / "big.py").write_text(big_file())
        memory = Path(tmp) / "memory.json"
        memory.write_text(json.dumps([{"path": "pkg/big.py", "match": "if quantity > LIMIT:", "memory_id": "m1",
                                       "message": "this shape failed 3 times", "replacement": None}]))
        lines = (ws / "pkg" / "big.py").read_text().count("\n")
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; file: {lines} lines")

        requests, totals, cpus = await initialize_times(ws, memory, args.inits)
        print(f"initialize: request->response median {statistics.median(requests) * 1000:.0f} ms, "
              f"max {max(requests) * 1000:.0f} ms (target < 500 ms; ratio {max(requests) / 0.5:.2f}); "
              f"server CPU for it median {statistics.median(cpus) * 1000:.0f} ms; "
              f"process spawn (Python + pygls imports) -> response median {statistics.median(totals) * 1000:.0f} ms")
        probe = ("import sys, fixloop.lsp.server; "
                 f"print(','.join(m for m in {HEAVY!r} if m in sys.modules) or 'none')")
        import subprocess
        heavy = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT / "server")}).stdout.strip()
        print(f"heavy modules imported by the server module at start-up: {heavy}")

        for debounce, moving in ((0, False), (20, False), (0, True), (20, True)):
            ms, cpu_ms = await latency(ws, memory, debounce, args.samples, moving)
            what = "a line inserted/removed (safety + memory)" if moving else "typing in a line (safety)"
            print(f"diagnostics after didChange, {what}, 2,000 lines, debounce {debounce} ms{' (default)' if debounce == 0 else ''}, n={len(ms)}: "
                  f"p50 {p(ms, 50):.1f} ms, p95 {p(ms, 95):.1f} ms, max {max(ms):.1f} ms "
                  f"(target p95 < 50 ms; ratio {p(ms, 95) / 50:.2f}); server CPU {cpu_ms:.1f} ms per change")

        series = await memory_growth(ws, memory, args.changes)
        base = series[1][1] if len(series) > 1 else series[0][1]
        print("RSS over didChange events: " + ", ".join(f"{n}: {mb:.1f} MB" for n, mb in series))
        print(f"RSS growth after warm-up (first 1,000 changes) to {series[-1][0]} changes: "
              f"{series[-1][1] - base:+.1f} MB (ratio {series[-1][1] / base:.3f})")


if __name__ == "__main__":
    asyncio.run(main())
