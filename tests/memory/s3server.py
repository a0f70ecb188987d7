"""A real S3-compatible server for the shared-memory tests: moto's standalone server on 127.0.0.1,
behind a relay the tests can cut and restore (the endpoint goes away and comes back with the bucket's
contents intact, which restarting moto would lose). The relay also keeps the head of every request
so a test can see what the client sent (the `If-None-Match` of a commit)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

MOTO = str(Path(sys.executable).with_name("moto_server"))
KEY_ID, SECRET = "AKIAFIXLOOPTESTKEY01", "fixloop-test-secret-value-0123456789"


def _die_with_parent() -> None:
    """The server ends with the test process, even one killed before its teardown ran."""
    import ctypes
    import signal

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url, timeout=1).close()
            return
        except Exception:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not answer within {seconds} s")
            time.sleep(0.1)


class Relay:
    """127.0.0.1:port -> 127.0.0.1:target, byte for byte, while `up`."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self.heads: list[bytes] = []
        self._server: socket.socket | None = None
        self._conns: list[socket.socket] = []
        self.start()

    def start(self) -> None:
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", self.port))
        server.listen(64)
        self._server = server
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()

    def stop(self) -> None:
        """The endpoint goes away: new connections are refused, open ones are cut."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for conn in self._conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()
        self._conns.clear()

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self._conns += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, record: bool) -> None:
        try:
            while data := src.recv(65536):
                if record and data[:4] in (b"PUT ", b"GET ", b"POST", b"DELE", b"HEAD"):
                    self.heads.append(data.split(b"\r\n\r\n", 1)[0][:2000])
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


class S3Server:
    def __init__(self, auth_actions: int | None = None) -> None:
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        if auth_actions is not None:  # moto checks keys once this many requests were let through
            env["INITIAL_NO_AUTH_ACTION_COUNT"] = str(auth_actions)
        self.process = subprocess.Popen([MOTO, "-H", "127.0.0.1", "-p", str(self.port)], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        preexec_fn=_die_with_parent)
        try:
            wait_http(f"http://127.0.0.1:{self.port}/moto-api/")
        except TimeoutError:
            self.close()
            raise
        self.relay = Relay(self.port)
        self.endpoint = f"http://127.0.0.1:{self.relay.port}"

    def env(self, key_id: str = KEY_ID, secret: str = SECRET) -> dict[str, str]:
        return {"AWS_ACCESS_KEY_ID": key_id, "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": "us-east-1",
                "AWS_ENDPOINT_URL": self.endpoint}

    def client(self, service: str = "s3", **env: str):  # type: ignore[no-untyped-def]
        import boto3

        e = {**self.env(), **env}
        return boto3.client(service, endpoint_url=f"http://127.0.0.1:{self.port}", region_name="us-east-1",
                            aws_access_key_id=e["AWS_ACCESS_KEY_ID"], aws_secret_access_key=e["AWS_SECRET_ACCESS_KEY"])

    def bucket(self, name: str) -> str:
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        return [o["Key"] for page in pages for o in page.get("Contents", [])]

    def close(self) -> None:
        if getattr(self, "relay", None) is not None:
            self.relay.stop()
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
