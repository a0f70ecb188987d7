"""A running container's streams and events, as the docker backend follows them.

`Streams`: one socket attached before the container starts carries its stdout and stderr into capped buffers
(the engine keeps no log). A run given two descriptors (a warm worker's request and answer pipes) gets them
under the same numbers inside (`docker_settings`), bridged here: the request pipe's bytes go to the container's
stdin, its stdout stream (which then carries nothing else: the command's own stdout goes to stderr) goes to
the answer pipe, and the end of the request pipe ends the container.
`OomWatch`: the kernel's OOM killer acting in the container ends the whole run (the run's memory cap).
`wait`: the container's end, or the wall clock.
"""

from __future__ import annotations

import os
import select
import threading
import time
from typing import Any, Sequence

from fixloop.adapters.sandbox import docker_engine as engine
from fixloop.adapters.sandbox.api import SandboxUnavailable
from fixloop.adapters.sandbox.streams import Capped

KILLED_WAIT = 10.0


class Streams:
    def __init__(self, c: Any, container: Any, out: Capped, err: Capped, fds: Sequence[int] = ()) -> None:
        from docker.utils.socket import STDERR, frames_iter

        self.container = container
        self.out, self.err = out, err
        self.request, self.answer = (fds[0], fds[1]) if fds else (None, None)
        params = {"stdout": 1, "stderr": 1, "stream": 1, **({"stdin": 1} if fds else {})}
        try:
            self.sock = c.api.attach_socket(container.id, params=params)
        except Exception as e:
            raise SandboxUnavailable(engine.explain(e, "attaching to a container")) from e
        self.raw = getattr(self.sock, "_sock", self.sock)
        self.raw.settimeout(None)  # a run may print nothing for longer than any API timeout
        self._stderr, self._frames = STDERR, frames_iter
        self._done = threading.Event()
        self._closed = False
        self.threads = [threading.Thread(target=self._pump, name="fixloop-docker-output", daemon=True)]
        if self.request is not None:
            self.threads.append(threading.Thread(target=self._feed, name="fixloop-docker-input", daemon=True))
        for thread in self.threads:
            thread.start()

    def _pump(self) -> None:
        try:
            for stream, data in self._frames(self.sock, False):
                if stream == self._stderr:
                    self.err.feed(data)
                elif self.answer is not None:
                    _write_all(self.answer, data)
                else:
                    self.out.feed(data)
        except Exception:  # the container was removed under us (wall clock, cancellation), or nobody listens
            pass

    def _feed(self) -> None:
        assert self.request is not None
        try:
            while not self._done.is_set():
                ready, _, _ = select.select([self.request], [], [], 0.2)
                if not ready:
                    continue
                data = os.read(self.request, 1 << 16)
                if not data:
                    break  # the host closed its end: the server is done
                self.raw.sendall(data)
        except OSError:
            pass
        if not self._done.is_set():
            try:
                self.container.kill()
            except Exception:  # ended already
                pass

    def close(self) -> None:
        """After the container ended: finish reading, then close the socket and the bridged descriptors (the host's
        other ends see EOF)."""
        if self._closed:
            return
        self._closed = True
        self._done.set()
        self.threads[0].join(KILLED_WAIT)
        try:
            self.sock.close()
        except OSError:
            pass
        for thread in self.threads[1:]:
            thread.join(KILLED_WAIT)
        for fd in (self.request, self.answer):
            if fd is not None:
                os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


class OomWatch:
    """Kills the container when the kernel's OOM killer acts in it: otherwise only the largest process dies and
    the rest go on."""

    def __init__(self, c: Any, container: Any) -> None:
        self.seen = False
        self._stopped = threading.Event()
        self._stream: Any = None
        self._since = int(time.time()) - 1  # events are replayed from here: none is missed before the stream opens
        self._c, self._container = c, container
        self._thread = threading.Thread(target=self._watch, name="fixloop-docker-oom", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stopped.is_set():
            try:
                self._stream = self._c.events(since=self._since, decode=True,
                                              filters={"container": self._container.id, "event": "oom"})
                for _ in self._stream:
                    self.seen = True
                    self._container.kill()
                    return
            except Exception:  # the stream's read timeout, or the container is gone: watch again unless stopped
                self._stopped.wait(0.5)

    def stop(self) -> None:
        self._stopped.set()
        stream = self._stream
        if stream is not None:
            try:
                stream.close()
            except Exception:  # closed already
                pass
        self._thread.join(2.0)


def wait(container: Any, deadline: float) -> tuple[str, int | None]:
    """Wait for the container to end: ("wall", None) when the deadline came first (then it is killed), else
    ("", its exit status)."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            try:
                container.kill()
                container.wait(timeout=KILLED_WAIT)
            except Exception:  # already gone
                pass
            return "wall", None
        try:
            code = container.wait(timeout=max(1, min(left, engine.API_SECONDS))).get("StatusCode")
            return "", code if isinstance(code, int) else None
        except Exception as e:
            if "timed out" in str(e).lower() or "timeout" in type(e).__name__.lower():
                continue  # not done yet: the deadline decides
            if "No such container" in str(e) or "404" in str(e):
                return "", None  # removed by kill_all (cancellation)
            raise SandboxUnavailable(engine.explain(e, "waiting for a container")) from e


def oom_killed(container: Any) -> bool:
    try:
        container.reload()
        return bool(container.attrs.get("State", {}).get("OOMKilled"))
    except Exception:
        return False
