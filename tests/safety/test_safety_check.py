"""PatchSafety: a candidate is blocked only for dangerous findings it introduced."""

from __future__ import annotations

from fixloop.core.model import FileChange, Patch
from fixloop.adapters.safety.check import PatchSafety, new_findings
from fixloop.adapters.safety.rules import scan

BEFORE = '''import os


def clean(path):
    os.system("rm -f " + path)


def between(a, b, x):
    return a < x < b
'''


def patch(after: str, before: str = BEFORE, path: str = "pkg/util.py") -> Patch:
    return Patch((FileChange(path, before, after),), proposer="test", operator="op")


def test_blocks_an_added_os_system() -> None:
    after = BEFORE.replace("    return a < x < b", '    os.system("rm -rf /tmp/x")\n    return a < x < b')
    verdict = PatchSafety().check(patch(after))
    assert not verdict.ok
    assert "FL-S002" in verdict.reason and "pkg/util.py:9" in verdict.reason
    assert {f.code for f in verdict.findings} >= {"FL-S002", "B605"}
    assert all(f.line == 9 for f in verdict.findings)


def test_allows_an_operator_change_next_to_an_old_finding() -> None:
    verdict = PatchSafety().check(patch(BEFORE.replace("a < x < b", "a <= x <= b")))
    assert verdict.ok and verdict.findings == () and verdict.reason == ""


def test_allows_moving_old_dangerous_code() -> None:
    moved = BEFORE.replace("import os\n", "import os\n\n\nCONSTANT = 3\n")
    assert PatchSafety().check(patch(moved)).ok


def test_a_second_copy_of_an_old_call_is_new() -> None:
    after = BEFORE.replace("    return a < x < b", '    os.system("rm -f " + path)\n    return a < x < b')
    assert not PatchSafety().check(patch(after)).ok


def test_changing_the_argument_of_an_old_call_is_new() -> None:
    after = BEFORE.replace('"rm -f " + path', '"rm -rf ~; " + path')
    assert not PatchSafety().check(patch(after)).ok


def test_bandit_only_finding_blocks() -> None:
    before = "import jsonpickle\n\n\ndef load(blob):\n    return None\n"
    after = before.replace("return None", "return jsonpickle.decode(blob)")
    assert scan(after, "pkg/m.py") == []  # the tree-sitter rules do not know jsonpickle
    verdict = PatchSafety().check(patch(after, before, "pkg/m.py"))
    assert not verdict.ok and "B301" in verdict.reason


def test_non_blocking_findings_are_reported() -> None:
    before = "import hashlib\n\n\ndef digest(b):\n    return b\n"
    after = before.replace("return b", "return hashlib.md5(b).hexdigest()")
    verdict = PatchSafety().check(patch(after, before, "pkg/m.py"))
    assert verdict.ok
    assert [f.code for f in verdict.findings] == ["B324"]
    assert "non-blocking" in verdict.reason


def test_warning_rule_does_not_block() -> None:
    before = "import tempfile\n\n\ndef name():\n    return None\n"
    after = before.replace("return None", "return tempfile.mktemp()")
    verdict = PatchSafety().check(patch(after, before, "pkg/m.py"))
    assert verdict.ok and "FL-S006" in {f.code for f in verdict.findings}


def test_nosec_does_not_hide_a_candidate() -> None:
    after = BEFORE.replace("    return a < x < b", "    eval(x)  # nosec\n    return a < x < b")
    verdict = PatchSafety().check(patch(after))
    assert not verdict.ok and {"FL-S001", "B307"} <= {f.code for f in verdict.findings}


def test_new_file_and_several_files() -> None:
    added = FileChange("pkg/new.py", "", "import pickle\n\n\ndef load(b):\n    return pickle.loads(b)\n")
    same = FileChange("pkg/util.py", BEFORE, BEFORE.replace("a < x", "a <= x"))
    verdict = PatchSafety().check(Patch((same, added)))
    assert not verdict.ok and "pkg/new.py:5" in verdict.reason


def test_non_python_files_are_not_scanned() -> None:
    change = FileChange("docs/notes.md", "", "os.system('x')\neval(x)\n")
    assert PatchSafety().check(Patch((change,))).ok


def test_run_configuration_may_not_change() -> None:
    for path, before, after in [
        ("pytest.ini", "[pytest]\n", "[pytest]\naddopts = --deselect test_calc.py::test_add\n"),
        ("pyproject.toml", "[project]\n", "[project]\n[tool.pytest.ini_options]\naddopts = '-p evil'\n"),
        ("pkg/evil.pth", "", "import os; os.system('x')\n"),
        ("sitecustomize.py", "", "print('hello')\n"),
    ]:
        verdict = PatchSafety().check(Patch((FileChange(path, before, after),)))
        assert not verdict.ok and "FL-S012" in verdict.reason, path


def test_rules_only_without_bandit() -> None:
    after = BEFORE.replace("    return a < x < b", "    eval(x)\n    return a < x < b")
    verdict = PatchSafety(use_bandit=False).check(patch(after))
    assert not verdict.ok and {f.code for f in verdict.findings} == {"FL-S001"}


def test_unparsable_and_undecodable_after_text() -> None:
    broken = BEFORE + "def oops(:\n"
    assert PatchSafety().check(patch(broken)).ok  # nothing new it can see; the tests will fail it
    surrogates = BEFORE + "s = '\udcff'\n"
    assert PatchSafety().check(patch(surrogates)).ok


def test_repairing_a_syntax_error_does_not_blame_old_findings() -> None:
    broken = BEFORE.replace("def between(a, b, x):", "def between(a, b, x)")  # bandit cannot parse this
    verdict = PatchSafety().check(patch(BEFORE, before=broken))
    assert verdict.ok, verdict.reason
    fixed_and_worse = BEFORE.replace("    return a < x < b", "    return eval(x)")
    verdict = PatchSafety().check(patch(fixed_and_worse, before=broken))
    assert not verdict.ok and "pkg/util.py:9" in verdict.reason


def test_oversized_file_is_refused() -> None:
    after = BEFORE + "# padding\n" * 100
    verdict = PatchSafety(max_chars=500).check(patch(after))
    assert not verdict.ok and "too large" in verdict.reason


def test_many_findings_are_summarized() -> None:
    after = BEFORE + "".join(f"\ndef f{i}(x):\n    return eval(x)\n" for i in range(6))
    verdict = PatchSafety(use_bandit=False).check(patch(after))
    assert not verdict.ok and "(and 3 more)" in verdict.reason


def test_new_findings_is_a_multiset_difference() -> None:
    one = "import os\nos.system(a)\n"
    two = "import os\nos.system(a)\nos.system(a)\n"
    assert len(new_findings(scan(one), scan(two), one, two)) == 1
    assert new_findings(scan(two), scan(one), two, one) == []


def test_the_unpatched_text_is_scanned_once_per_run() -> None:
    safety = PatchSafety()
    for op in ("<=", ">", ">="):
        assert safety.check(patch(BEFORE.replace("a < x", f"a {op} x"))).ok
    assert len(safety._before) == 1
