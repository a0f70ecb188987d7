"""A misbehaving language server that tests the extension's error paths (not a fixloop server).

FIXLOOP_FAKE_MODE=old-protocol: answers initialize with protocol 2 (an incompatible server).
FIXLOOP_FAKE_MODE=crash: answers initialize correctly, then exits with status 3 (a crash).
"""
import json
import os
import sys


def read_message(stream):
    length = 0
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length))


def send(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def main():
    mode = os.environ.get("FIXLOOP_FAKE_MODE", "old-protocol")
    protocol = 2 if mode == "old-protocol" else 1
    while True:
        message = read_message(sys.stdin.buffer)
        if message is None:
            return
        method = message.get("method")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {
                "capabilities": {"experimental": {"fixloop": {"protocol": protocol}}},
                "serverInfo": {"name": "fixloop", "version": "0.0.0-fake"}}})
        elif method == "initialized" and mode == "crash":
            sys.stderr.write("fake fixloop server: crashing on purpose\n")
            sys.exit(3)
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif method == "exit":
            return
        elif "id" in message:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "not here"}})


if __name__ == "__main__":
    main()
