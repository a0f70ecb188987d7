import subprocess
import sys

from .conftest import SERVER


def test_wiring_and_the_memory_port_import_without_lancedb_pyarrow_or_numpy() -> None:
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import fixloop.wiring, fixloop.memory.learning, "
            "fixloop.memory.replay, fixloop.memory.factory; "
            "print(sorted(m for m in ('lancedb', 'pyarrow', 'pandas', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, SERVER], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
