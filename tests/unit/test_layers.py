"""The package's import structure: no cycle, and no import from a lower layer to a higher one.

The layers of ``py_vfs``, bottom to top, are its packages (``LAYERS``); every module must be in
one. A module may import modules of its own layer or of a lower one. Every import counts,
wherever it is written (a function-local import is still an import, only a later one), and an
import of ``a.b.c`` also runs the package ``a.b``'s ``__init__``, so that counts too. Imports
made only for annotations (under ``if TYPE_CHECKING:``) must not go upward either; they are left
out of the cycle check alone, since they never run. The graph is read with ``ast`` from the
installed sources, so this also holds inside Pyodide.
"""

from __future__ import annotations

import ast
from pathlib import Path

import py_vfs

# Bottom to top. A module is named by its dotted path below ``py_vfs`` ("" is the package
# itself); an entry ending in ".*" takes a whole subpackage, its ``__init__`` included.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("core", ("core.*",)),
    ("storage", ("storage.*",)),
    ("disk", ("disk.*",)),
    ("mounted folders", ("mounts.*",)),
    ("file system", ("fs.*",)),
    ("data", ("data.*",)),
    # The agent tools use the facade's API only, and the package exports them beside it.
    ("views", ("views.*", "agent")),
    ("facade", ("vfs", "")),
    ("over the facade", ("archives.*", "hosts.*", "pyhost.*", "fsspec_fs", "defaults")),
    # The dock: its sync engine over the facade, and its server (docs/dock.md).
    ("dock", ("dock.*",)),
    ("shell", ("shell.*",)),
    ("web", ("web.*", "__main__")),
]

ROOT = Path(py_vfs.__file__).parent


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: its dotted name below ``py_vfs``, file, is-a-package."""
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        found[".".join(parts)] = (path, is_package)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement, and whether it sits under ``if TYPE_CHECKING:``."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []

    def visit(node: ast.AST, annotations_only: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append((node, annotations_only))
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, annotations_only)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, annotations_only)

    visit(tree, False)
    return found


def _targets(statement: ast.Import | ast.ImportFrom, name: str, is_package: bool,
             modules: dict[str, tuple[Path, bool]]) -> set[str]:
    """The modules of ``py_vfs`` a statement of module ``name`` runs (parent packages too)."""
    if isinstance(statement, ast.Import):
        absolute = [alias.name for alias in statement.names]
        wanted = [(a, None) for a in absolute if a == "py_vfs" or a.startswith("py_vfs.")]
    else:
        if statement.level:
            package = name.split(".") if is_package else name.split(".")[:-1]
            base = package[:len(package) - statement.level + 1] if name else []
            module = ".".join(["py_vfs", *base, *([statement.module] if statement.module else [])])
        else:
            module = statement.module or ""
        if module != "py_vfs" and not module.startswith("py_vfs."):
            return set()
        wanted = [(module, alias.name) for alias in statement.names]
    targets = set()
    for module, member in wanted:
        inner = module.removeprefix("py_vfs").lstrip(".")
        if member is not None and (submodule := f"{inner}.{member}".lstrip(".")) in modules:
            inner = submodule
        parts = inner.split(".") if inner else []
        for depth in range(1, len(parts) + 1):  # importing a.b.c runs a and a.b first
            targets.add(".".join(parts[:depth]))
    # A module's own packages have begun running before it does (the package ``py_vfs`` before
    # anything): importing from them is no edge.
    ancestors = {".".join(name.split(".")[:depth]) for depth in range(len(name.split(".")))}
    return targets - ancestors - {""}


def _graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(runtime imports, annotation-only imports) of every module."""
    modules = _modules()
    runtime: dict[str, set[str]] = {name: set() for name in modules}
    annotations: dict[str, set[str]] = {name: set() for name in modules}
    for name, (path, is_package) in modules.items():
        for statement, annotations_only in _imports(ast.parse(path.read_text("utf-8"))):
            edges = annotations if annotations_only else runtime
            edges[name] |= _targets(statement, name, is_package, modules) - {name}
    return runtime, annotations


def _layer_of(name: str) -> int | None:
    for rank, (_, members) in enumerate(LAYERS):
        for member in members:
            if member == name or (member.endswith(".*") and (
                    name == member[:-2] or name.startswith(member[:-1]))):
                return rank
    return None


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (as a path that comes back to its start), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if state.get(start):
            continue
        path = [start]
        stack = [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            following = next(stack[-1], None)
            if following is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(following) == 1:
                return [*path[path.index(following):], following]
            elif not state.get(following):
                state[following] = 1
                path.append(following)
                stack.append(iter(sorted(graph.get(following, ()))))
    return None


def test_every_module_has_a_layer():
    missing = sorted(name or "py_vfs" for name in _modules() if _layer_of(name) is None)
    assert not missing, f"modules without a layer in LAYERS: {missing}"


def test_no_import_cycle():
    runtime, _ = _graph()
    cycle = _cycle(runtime)
    assert cycle is None, "import cycle: " + " -> ".join(name or "py_vfs" for name in cycle)


def test_no_import_goes_up_a_layer():
    runtime, annotations = _graph()
    upward = []
    for edges, kind in ((runtime, "imports"), (annotations, "imports for annotations")):
        for name, targets in sorted(edges.items()):
            for target in sorted(targets):
                low, high = _layer_of(name), _layer_of(target)
                if low is not None and high is not None and high > low:
                    upward.append(f"{name or 'py_vfs'} ({LAYERS[low][0]}) {kind} "
                                  f"{target or 'py_vfs'} ({LAYERS[high][0]})")
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(upward)


def test_the_checks_see_cycles_and_upward_imports():
    """The checker itself: a made-up graph with a cycle, and an upward import, are caught."""
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
    assert _layer_of("vfs") > _layer_of("fs.resolver") > _layer_of("disk.engine") > _layer_of(
        "core.node")
    assert _layer_of("shell.commands.files") == _layer_of("shell")


# One concept a module, one a class: a module past MAX_MODULE_LINES, or a class past
# MAX_CLASS_LINES, is asked whether it holds two things; the answer is a split by concept (a
# class's second job becomes a class of its own), never a cut where the count runs out.
MAX_MODULE_LINES = 500
MAX_CLASS_LINES = 350


def test_no_module_or_class_outgrows_one_concept():
    too_long = []
    for name, (path, _) in sorted(_modules().items()):
        text = path.read_text("utf-8")
        if (lines := text.count("\n")) > MAX_MODULE_LINES:
            too_long.append(f"module {name or 'py_vfs'}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and (
                    size := node.end_lineno - node.lineno + 1) > MAX_CLASS_LINES:
                too_long.append(f"class {name}.{node.name}: {size} lines")
    assert not too_long, "\n".join(too_long)
