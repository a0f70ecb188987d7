"""The warm worker compiles the project once: its children take a code object only for the exact source it
was made from (a candidate's changed file is compiled afresh)."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

from fixloop.adapters.runner.warm import WORKER
from tests.conftest import PYTHON

SCRIPT = textwrap.dedent('''
    import importlib, os, sys
    from pathlib import Path
    sys.path[:0] = [os.path.dirname(sys.argv[1]), sys.argv[2]]
    import importlib.util
    spec = importlib.util.spec_from_file_location("fixloop_warm", sys.argv[1])
    warm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(warm)
    root = sys.argv[2]
    warm._remember_compiled(root)

    def fresh(name):
        sys.modules.pop(name, None)
        importlib.invalidate_caches()
        return importlib.import_module(name)

    first = fresh("mod").f.__code__
    print("same source, same code:", fresh("mod").f.__code__ is first)
    with open(os.path.join(root, "mod.py"), "w") as f:
        f.write("def f():\\n    return 2\\n")
    changed = fresh("mod")
    print("changed source, new code:", changed.f.__code__ is not first and changed.f() == 2)
    from _pytest.assertion import rewrite
    test = Path(root) / "test_it.py"
    one = rewrite._rewrite_test(test, None)[1]
    print("rewritten once:", rewrite._rewrite_test(test, None)[1] is one)
    test.write_text("def test_it():\\n    assert 1 == 2\\n")
    print("rewritten again when changed:", rewrite._rewrite_test(test, None)[1] is not one)
''')


def test_code_objects_are_reused_only_for_the_same_source(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "mod.py").write_text("def f():\n    return 1\n")
    (root / "test_it.py").write_text("def test_it():\n    assert 1 == 1\n")
    (tmp_path / "probe.py").write_text(SCRIPT)
    out = subprocess.run([PYTHON, "-B", str(tmp_path / "probe.py"), str(WORKER), str(root)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines == ["same source, same code: True", "changed source, new code: True", "rewritten once: True",
                     "rewritten again when changed: True"], out.stdout
