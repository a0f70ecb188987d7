import subprocess
import sys

from .conftest import SERVER


def test_wiring_and_the_memory_port_import_without_lancedb_pyarrow_or_numpy() -> None:
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import fixloop.application.wiring, fixloop.adapters.memory.learning, "
            "fixloop.adapters.memory.replay, fixloop.adapters.memory.factory; "
            "print(sorted(m for m in ('lancedb', 'pyarrow', 'pandas', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, SERVER], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
