"""The architecture, enforced: data flows one way, so no module imports one above it.

Each module of ``src/txcript`` belongs to one layer (lowest first). An import, at module level or
deferred inside a function, may only reach the same layer or a lower one; a harness package never
imports a sibling harness (shared code lives in ``txcript.shared``); and the import graph,
deferred imports included, has no cycles. A new top-level module must be given a layer here, so
the map stays the architecture's one written statement.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: (module prefix, layer). The longest matching prefix wins.
LAYERS: list[tuple[str, int]] = [
    ("txcript.errors", 0),
    ("txcript.diagnostics", 0),
    ("txcript.shared", 1),
    ("txcript.shared.formats", 3),  # formats two harnesses share, with their Common codecs
    ("txcript.model", 2),
    ("txcript.pairing", 2),
    ("txcript.fragment", 2),
    ("txcript.launch", 2),
    ("txcript.harnesses.base", 3),
    ("txcript.harnesses.declare", 3),
    ("txcript.harnesses.", 4),  # each harness package
    ("txcript.harnesses", 5),  # the registry
    ("txcript.sessions", 6),
    ("txcript.restoring", 6),
    ("txcript.demo", 6),
    ("txcript.search", 7),
    ("txcript.render", 7),
    ("txcript.operations", 8),
    ("txcript.doctor", 8),
    ("txcript._library", 9),  # the public API: what the front ends call
    ("txcript.mcp_server", 10),
    ("txcript.cli", 11),
    ("txcript.__main__", 12),
    ("txcript._version", 0),
    ("txcript", 13),  # the package itself: the public names, imported from _library on use
]


def _modules() -> dict[str, Path]:
    found = {}
    for path in (SRC / "txcript").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def layer_of(module: str) -> int:
    best: tuple[int, int] | None = None
    for prefix, layer in LAYERS:
        matches = (
            module.startswith(prefix) and module != prefix.rstrip(".")
            if prefix.endswith(".")
            else module == prefix or module.startswith(prefix + ".")
        )
        if matches and (best is None or len(prefix) > best[0]):
            best = (len(prefix), layer)
    if best is None:
        raise AssertionError(f"{module} has no layer in tests/test_layering.py")
    return best[1]


def harness_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "harnesses" and parts[2] not in ("base", "declare"):
        return parts[2]
    return None


def _resolve(importer: str, node: ast.ImportFrom | ast.Import) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    if node.level:
        package = importer.split(".")
        if MODULES[importer].name != "__init__.py":
            package.pop()
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    for alias in node.names:
        candidate = f"{base}.{alias.name}"
        yield candidate if candidate in MODULES else base


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(module: str) -> Iterator[tuple[str, bool]]:
    """Every txcript module that ``module`` imports, and whether the import runs at load time."""

    def walk(node: ast.AST, top_level: bool) -> Iterator[tuple[str, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                for target in _resolve(module, child):
                    if target == "txcript" or target.startswith("txcript."):
                        yield target, top_level
            elif (isinstance(child, ast.If) and _is_type_checking(child)) or isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            ):
                yield from walk(child, False)
            else:
                yield from walk(child, top_level)

    yield from walk(ast.parse(MODULES[module].read_text(encoding="utf-8")), True)


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_reaches_a_higher_layer_or_a_sibling_harness(module: str) -> None:
    for target, _ in imports(module):
        assert layer_of(target) <= layer_of(module), f"{module} imports {target}, a higher layer"
        mine, theirs = harness_of(module), harness_of(target)
        assert mine is None or theirs is None or mine == theirs, (
            f"{module} borrows from the sibling harness {target}; move it to txcript.shared"
        )


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A circle of imports in ``graph`` (module -> the modules it imports), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state and (cycle := visit(target)) is not None:
                return cycle
        stack.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state and (cycle := visit(module)) is not None:
            return cycle
    return None


def import_graph() -> dict[str, set[str]]:
    """Every import between our modules, at load time or deferred into a function alike: a
    deferred import that closes a circle is still two modules that each need the other."""
    graph = {
        module: {target for target, _ in imports(module) if target in MODULES} for module in MODULES
    }
    # A package's __init__ importing its own submodules is how packages are built, not a cycle.
    for module, targets in graph.items():
        targets.discard(module)
    return graph


def test_no_two_modules_import_each_other_even_through_others() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_catches_a_deferred_circle() -> None:
    # The shape the opencode writer and its row backups had: each imported the other, one of
    # the two imports deferred into a function.
    graph = import_graph()
    graph["txcript.shared.formats.opencode.rowbackup"].add("txcript.shared.formats.opencode.write")
    pair = ["txcript.shared.formats.opencode.rowbackup", "txcript.shared.formats.opencode.write"]
    # Found from whichever of the two the search reaches first.
    assert find_cycle(graph) in ([*pair, pair[0]], [*pair[::-1], pair[1]])
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_checker_catches_what_it_claims() -> None:
    # A test that cannot fail is a defect: the rules do reject an upward import and a sibling one.
    assert layer_of("txcript.cli.app") > layer_of("txcript.sessions")
    assert layer_of("txcript.harnesses.codex.store") < layer_of("txcript.harnesses")
    assert harness_of("txcript.harnesses.codex.store") != harness_of("txcript.harnesses.gemini")
    with pytest.raises(AssertionError, match="no layer"):
        layer_of("elsewhere.module")
