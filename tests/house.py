"""The map of the house: which layer each package (or loose module) of `server/fixloop` belongs to (its folder), the
package-level import graph read from the source, the imports that go against the layers, and the drawing
of it in docs/architecture.md (`python -m tests.house` writes it; tests/test_architecture.py checks that it
is current and that no new import goes against the layers).

A layer may import the layers below it and its own; engines and adapters stand side by side and import
neither each other nor anything above them; front ends should import only the application layer (and the
domain and kit below it).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "server" / "fixloop"
DOC = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"
BEGIN, END = "<!-- house:begin (python -m tests.house) -->", "<!-- house:end -->"

# The folders are the layers: (folder, layer, rank). An import may go to a lower rank, or stay inside its own
# layer. What sits at the top of the package itself (`cli`, `lsp`, `run_display`, `__main__`) is the front ends.
FOLDERS: tuple[tuple[str, str, int], ...] = (
    ("core", "domain", 0),
    ("kit", "kit", 1),
    ("engines", "engines", 2),
    ("adapters", "adapters", 2),
    ("application", "application", 3),
)
TOP = ("front ends", 4)
LAYER_FOLDERS = {folder for folder, _, _ in FOLDERS if folder != "core"}
FRONT_ENDS_SEE = ("front ends", "application", "kit", "domain")


def layers() -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    """(layer, rank, members) read from the folders: a member is a package or a loose module in one."""
    out = []
    for folder, layer, rank in FOLDERS:
        if folder == "core":
            out.append((layer, rank, ("core",)))
            continue
        members = sorted(p.stem if p.is_file() else p.name for p in (PACKAGE / folder).iterdir()
                         if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem != "__init__"))
        out.append((layer, rank, tuple(members)))
    tops = sorted(p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
                  if p.name not in LAYER_FOLDERS | {"core", "__init__.py"}
                  and ((p.is_dir() and (p / "__init__.py").exists()) or p.suffix == ".py"))
    out.append((TOP[0], TOP[1], tuple(tops)))
    return tuple(out)


LAYERS = layers()
LAYER_OF = {member: (layer, rank) for layer, rank, members in LAYERS for member in members}


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.with_suffix("").relative_to(PACKAGE.parent).parts
        out[".".join(parts).removesuffix(".__init__")] = path
    return out


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports (anywhere in it: inside functions and TYPE_CHECKING too)."""
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(parts + ([base] if base else []))
                for alias in node.names:
                    # `from . import wiring` names a module; `from .x import name` names x.
                    target = next((c for c in (f"{base}.{alias.name}", base) if c in mods), None)
                    if target is not None and target != name:
                        graph[name].add(target)
            elif isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names if a.name in mods and a.name != name)
    return graph


def part_of(module: str) -> str:
    """The package a module belongs to (`fixloop.adapters.runner.cold` -> runner, `fixloop.core.loop` -> core),
    or the loose module's own name (`fixloop.kit.printable` -> printable); "" for a layer folder itself."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in LAYER_FOLDERS:
        return parts[2] if len(parts) > 2 else ""
    return parts[1] if len(parts) > 1 else ""


def package_edges(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {(part_of(a), part_of(b)) for a, targets in graph.items() for b in targets
            if part_of(a) and part_of(b) and part_of(a) != part_of(b)}


def against_the_layers(edges: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The imports that go up, across between engines and adapters, or from a front end past the application
    layer; a package not in LAYERS is one too."""
    out = set()
    for a, b in edges:
        if a not in LAYER_OF or b not in LAYER_OF:
            out.add((a, b))
            continue
        (layer_a, rank_a), (layer_b, rank_b) = LAYER_OF[a], LAYER_OF[b]
        if not (rank_b < rank_a or layer_a == layer_b) or (layer_a == "front ends" and layer_b not in FRONT_ENDS_SEE):
            out.add((a, b))
    return out


def drawing(edges: set[tuple[str, str]]) -> str:
    """A mermaid flowchart: one box per layer, an arrow per package import; the ones against the layers
    are dashed."""
    wrong = against_the_layers(edges)
    lines = ["```mermaid", "flowchart TB"]
    for layer, _, members in sorted(LAYERS, key=lambda x: -x[1]):
        lines.append(f'  subgraph {layer.replace(" ", "_")}["{layer}"]')
        lines.extend(f'    {_node(m)}["{m}"]' for m in members)
        lines.append("  end")
    for a, b in sorted(edges - wrong):
        lines.append(f"  {_node(a)} --> {_node(b)}")
    for a, b in sorted(wrong):
        lines.append(f"  {_node(a)} -.-> {_node(b)}")
    lines.append("```")
    return "\n".join(lines)


def _node(name: str) -> str:
    return "m_" + name.strip("_")


def section() -> str:
    edges = package_edges(import_graph(modules()))
    wrong = sorted(against_the_layers(edges))
    listed = "\n".join(f"- `{a}` -> `{b}`" for a, b in wrong) or "- none"
    return (f"{BEGIN}\n{drawing(edges)}\n\n{len(edges)} package imports, {len(wrong)} against the layers "
            f"(dashed above):\n\n{listed}\n{END}")


def written(text: str) -> str:
    """`text` with its generated section replaced by today's."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + section() + text[end:]


if __name__ == "__main__":
    DOC.write_text(written(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    sys.stderr.write(f"wrote {DOC}\n")
