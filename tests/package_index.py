"""A package index on 127.0.0.1 holding one wheel (tinydep 1.0), and a project that needs it: for the tests of
an approved install (pytest here, the headless Neovim test through `python -m tests.package_index`).

    python -m tests.package_index --root DIR --url-file FILE

builds DIR/calc (with its own .venv holding pytest and pip, but not tinydep) and DIR/index, then serves the
index until killed, writing its URL to FILE once it listens.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import http.server
import threading
import zipfile
from pathlib import Path
from typing import Iterator

from tests.project_python import _build, _closure

CALC = "import tinydep\n\n\ndef add(a, b):\n    return a - b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def wheel(folder: Path) -> Path:
    """tinydep 1.0, a pure wheel with a valid RECORD."""
    files = {"tinydep/__init__.py": b"def double(x):\n    return 2 * x\n",
             "tinydep-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinydep\nVersion: 1.0\n",
             "tinydep-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = "".join(f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},"
                     f"{len(data)}\n" for name, data in files.items()) + "tinydep-1.0.dist-info/RECORD,,\n"
    folder.mkdir(parents=True)
    path = folder / "tinydep-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in {**files, "tinydep-1.0.dist-info/RECORD": record.encode()}.items():
            z.writestr(name, data)
    return path


def needs_tinydep(root: Path) -> Path:
    """A project whose only failure, until tinydep is installed, is its import; then `add` is wrong."""
    project = root / "calc"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "calc"\nversion = "0"\ndependencies = ["tinydep>=1"]\n')
    (project / "calc.py").write_text(CALC)
    (project / "tests" / "test_calc.py").write_text(TESTS)
    _build(project / ".venv", _closure(("pytest", "pip")))
    return project


@contextlib.contextmanager
def serving(root: Path) -> Iterator[tuple[str, list[str]]]:
    """(the index's URL, the paths it was asked for) while it serves `root`/simple."""
    wheel(root / "simple" / "tinydep")
    asked: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(root), **kwargs)  # type: ignore[arg-type]

        def log_message(self, format: str, *args: object) -> None:
            asked.append(self.path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple", asked
    finally:
        server.shutdown()
        server.server_close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--url-file", type=Path, required=True)
    args = ap.parse_args()
    needs_tinydep(args.root)
    with serving(args.root / "index") as (url, _):
        args.url_file.write_text(url + "\n")
        threading.Event().wait()  # until killed


if __name__ == "__main__":
    main()
