import subprocess
import sys

import numpy as np
import pytest

from fixloop.adapters.memory.embed import HashingEmbedder, load_embedder
from fixloop.adapters.memory.redact import redact

from .conftest import SERVER


def test_hashing_embedder_is_deterministic_across_processes() -> None:
    text = "AssertionError: assert <num> == <num> @ if ID > ID : if quantity > BULK:"
    here = HashingEmbedder().embed([text])[0]
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from fixloop.adapters.memory.embed import HashingEmbedder; "
            "print(','.join(repr(float(x)) for x in HashingEmbedder().embed([sys.argv[2]])[0]))")
    out = subprocess.run([sys.executable, "-c", code, SERVER, text], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "123", "PATH": ""}).stdout
    assert np.allclose(here, np.array([float(x) for x in out.split(",")], dtype=np.float32))
    assert abs(float(np.linalg.norm(here)) - 1.0) < 1e-5


def test_similar_signatures_are_closer_than_different_ones() -> None:
    e = HashingEmbedder()
    a, b, c = e.embed([
        "AssertionError: assert <num> == <num> @ if ID > ID : if quantity > LIMIT:",
        "AssertionError: assert <num> == <num> @ if ID > ID : if age > SENIOR_AGE:",
        "KeyError: <str> @ return ID [ ID ] return table[key]",
    ])
    assert float(a @ b) > 0.6 > float(a @ c)


def test_load_embedder_plugs_in_a_factory(tmp_path, monkeypatch) -> None:
    (tmp_path / "my_embedder.py").write_text(
        "import numpy as np\nclass E:\n    dim = 8\n    name = 'ones-8'\n"
        "    def embed(self, texts):\n        return np.ones((len(texts), 8), dtype=np.float32) / np.sqrt(8)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    embedder = load_embedder("my_embedder:E")
    assert embedder.name == "ones-8" and embedder.embed(["x"]).shape == (1, 8)
    assert load_embedder("hashing:64").dim == 64
    for bad in ("nope_module:E", "hashing:3", "justaname"):
        with pytest.raises(ValueError):
            load_embedder(bad)


def test_redact_removes_keys_tokens_passwords_and_secret_env_values() -> None:
    text = ("password=hunter22 api_key: 'sk-ant-abcdefghijklmnop123' ghp_abcdefghijklmnopqrstuvwxyz1234 "
            "Authorization: Bearer abcdefghijklmnopqrstu https://bob:pw123@example.com/x value s3cr3t-value-9")
    out = redact(text, {"MY_SERVICE_TOKEN": "s3cr3t-value-9", "HOME": "/home/bob"})
    for secret in ("hunter22", "sk-ant-abcdefghijklmnop123", "ghp_abcdefghijklmnopqrstuvwxyz1234",
                   "abcdefghijklmnopqrstu", "pw123", "s3cr3t-value-9"):
        assert secret not in out
    assert "https://<redacted>@example.com/x" in out
    assert redact("assert total == 9", {}) == "assert total == 9"
