"""The shape of the house, read from the source (ast, nothing imported): imports of `server/fixloop` go one
way (no module imports itself through others, type-only imports included), no module passes 400 lines,
no function anywhere in it passes 80 lines, no private name is imported from another package, packages
import each other one way, no package imports against the layers of tests/house.py (its folder),
the drawing of them in docs/architecture.md is current, and `core/` and `lsp/` never probe objects with
getattr/hasattr."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from tests.house import PACKAGE, import_graph, modules, part_of

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
# What the loop and the language server need of an adapter (or of pygls) is declared (core/ports.py, typed
# attributes), never probed for: no getattr/hasattr in these folders.
NO_PROBING_IN = ("core", "lsp")

# Known exceptions, each owned by other work in flight: remove an entry once it is fixed there.
# (Empty today: add "fixloop.x.y" with a comment saying whose it is, never to hide a new problem.)
KNOWN_CYCLES: set[frozenset[str]] = set()
KNOWN_LONG_MODULES: set[str] = set()


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            child = next(edges, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [frozenset({"a", "b", "c"})]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_imports_go_one_way() -> None:
    found = [c for c in cycles(import_graph(modules())) if c not in KNOWN_CYCLES]
    assert not found, "modules importing each other in a circle:\n" + "\n".join(
        " <-> ".join(sorted(c)) for c in found)


def test_no_module_is_over_400_lines() -> None:
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not {m: n for m, n in long.items() if m not in KNOWN_LONG_MODULES}, long


def test_no_function_is_over_80_lines() -> None:
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, long


def test_core_and_lsp_never_probe_with_getattr_or_hasattr() -> None:
    probes = []
    for folder in NO_PROBING_IN:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                        and node.func.id in ("getattr", "hasattr"):
                    probes.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.func.id}")
    assert not probes, probes


def test_command_ids_live_in_the_contract_and_the_protocol_document() -> None:
    """Every command the server registers is in lsp/contract.py and in docs/protocol.md; no other module
    of the server spells one."""
    from fixloop.lsp import contract
    from fixloop.lsp.server import build_server

    assert sorted(build_server().protocol.fm.commands) == sorted(contract.COMMANDS)
    protocol = (PACKAGE.parent.parent / "docs" / "protocol.md").read_text(encoding="utf-8")
    for command in contract.COMMANDS:
        assert f"`{command}`" in protocol, command
        for name, path in modules().items():
            if name != "fixloop.lsp.contract":
                assert f'"{command}"' not in path.read_text(encoding="utf-8"), (name, command)


def private_imports(mods: dict[str, Path]) -> list[str]:
    """`from <another package> import _name`: a private name read across a package boundary."""
    found = []
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            target = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(parts + ([node.module] if node.module else []))
            if not target.startswith("fixloop") or part_of(target) == part_of(name):
                continue  # another library, or within one package (or one loose module)
            found += [f"{name} imports {alias.name} from {target}" for alias in node.names
                      if alias.name.startswith("_") and not alias.name.startswith("__")]
    return found


def test_imports_are_absolute_so_each_names_the_layer_it_reaches() -> None:
    relative = [f"{name}:{node.lineno}" for name, path in modules().items()
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.ImportFrom) and node.level]
    assert not relative, relative


def test_no_private_name_is_imported_from_another_package(tmp_path: Path) -> None:
    assert not private_imports(modules())
    (tmp_path / "a.py").write_text("from fixloop.kit.shapes import _hidden\nfrom fixloop.core.model import _ok\n")
    assert private_imports({"fixloop.core.loop": tmp_path / "a.py"}) == [
        "fixloop.core.loop imports _hidden from fixloop.kit.shapes"]




def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """`fixloop.<package or top-level module>` -> the others it imports, from the module graph."""
    def top(module: str) -> str:
        return part_of(module) or module

    out: dict[str, set[str]] = {}
    for name, targets in graph.items():
        out.setdefault(top(name), set()).update(top(t) for t in targets if top(t) != top(name))
    for targets in list(out.values()):
        for t in targets:
            out.setdefault(t, set())
    return out


def test_packages_import_each_other_one_way() -> None:
    found = cycles(package_graph(import_graph(modules())))  # imports inside functions count too
    assert not found, f"packages importing each other in a circle: {found}"
    assert package_graph({"fixloop.a.x": {"fixloop.b.y"}, "fixloop.b.y": {"fixloop.a.z"}, "fixloop.a.z": set()}) == {
        "a": {"b"}, "b": {"a"}}


def test_every_module_of_the_contract_stage_exists_and_runs_nothing_of_its_own() -> None:
    from tests.conftest import CONTRACT

    tests = Path(__file__).resolve().parent
    for entry in CONTRACT:
        assert (tests / entry).exists(), f"CONTRACT names {entry}, which is gone"
        for module in ([tests / entry] if entry.endswith(".py") else sorted((tests / entry).glob("test_*.py"))):
            if module.resolve() == Path(__file__).resolve():
                continue  # this file names the words it looks for
            text = module.read_text()
            for word in ("PytestRunner", "mark.e2e", "mark.docker", "from fixloop.adapters.sandbox", "import lancedb"):
                assert word not in text, f"{module.name} uses {word}: it belongs in the fast stage, not the contract"


def test_the_layer_rule_flags_imports_up_across_and_past_the_application() -> None:
    from tests.house import against_the_layers

    assert against_the_layers({("core", "runner")}) == {("core", "runner")}  # the domain reaching an adapter
    assert against_the_layers({("repair", "runner")}) == {("repair", "runner")}  # an engine reaching an adapter
    assert against_the_layers({("lsp", "runner")}) == {("lsp", "runner")}  # a front end past the application
    assert against_the_layers({("somewhere_new", "core")}) == {("somewhere_new", "core")}  # not in the map
    assert against_the_layers({("session", "runner"), ("repair", "core"), ("lsp", "session")}) == set()


def test_packages_import_along_the_layers() -> None:
    from tests.house import against_the_layers, import_graph, modules, package_edges

    found = against_the_layers(package_edges(import_graph(modules())))
    assert not found, "imports against the layers (tests/house.py FOLDERS):\n" + "\n".join(f"{a} -> {b}" for a, b in sorted(found))


def test_the_drawing_in_docs_architecture_is_current() -> None:
    from tests.house import DOC, written

    text = DOC.read_text(encoding="utf-8")
    assert written(text) == text, "docs/architecture.md is out of date: python -m tests.house writes it"


def test_the_host_never_imports_pytest() -> None:
    """pytest is the project's (its interpreter, inside the sandbox), not one of fixloop's dependencies: the
    runtime files that import it (the report plugin, its options, the warm worker) are never imported on
    the host, and nothing else is allowed to need it."""
    host = ("fixloop.cli", "fixloop.lsp.server", "fixloop.application.wiring", "fixloop.adapters.runner.pytest_runner")
    code = "import sys; sys.modules['pytest'] = None; " + "; ".join(f"import {m}" for m in host)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "server")})
    assert done.returncode == 0, done.stderr[-2000:]
