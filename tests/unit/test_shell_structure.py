"""The shell's structure, read from its source with ``ast``: its modules form no import cycle,
it reaches the file system only through the ``Disk`` protocol (no ``py_vfs.vfs`` import, no
private member of another object), every public function has a docstring, and every command
it registers is in its reference, docs/shell.md."""

from __future__ import annotations

import ast
from pathlib import Path

from py_vfs.shell.commands import COMMANDS
from py_vfs.shell.disk import Disk

ROOT = Path(__file__).resolve().parents[2]
SHELL = ROOT / "py_vfs" / "shell"
PACKAGE = "py_vfs.shell"
MAX_LINES = 500


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in sorted(SHELL.rglob("*.py"))}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imports(module: str, tree: ast.Module) -> set[str]:
    """The shell modules ``module`` imports, TYPE_CHECKING blocks included (a cycle there is
    still a cycle for whoever reads the code). ``from pkg import name`` counts as importing the
    submodule ``pkg.name`` when there is one, else ``pkg`` itself."""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in MODULES else base)
    return {name for name in found if name in MODULES and name != module}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a list of modules, or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = "open"
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                return [*path[path.index(target):], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state and (cycle := visit(module)):
            return cycle
    return None


def test_the_shell_modules_form_no_import_cycle() -> None:
    graph = {module: _imports(module, _tree(path)) for module, path in MODULES.items()}
    assert graph[f"{PACKAGE}.execute"] >= {f"{PACKAGE}.commands", f"{PACKAGE}.context"}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    # The check above would pass vacuously if _cycle never found anything.
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]


def test_the_shell_does_not_import_the_vfs_module() -> None:
    """The shell is typed against the Disk protocol; it works with any object that has those
    methods and never depends on VFS's module (nor its internals)."""
    offenders = []
    for module, path in MODULES.items():
        for node in ast.walk(_tree(path)):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(name == "py_vfs.vfs" or name.endswith(".vfs") for name in names):
                offenders.append(f"{module}:{node.lineno}")
    assert offenders == []


def _named(node: ast.expr) -> str | None:
    """The last name of ``x`` or ``a.x``: what an attribute is read from."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def test_the_shell_touches_no_private_member_of_another_object() -> None:
    offenders = []
    for module, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        if "type: ignore" in text:
            offenders.append(f"{module}: a '# type: ignore'")
        for node in ast.walk(_tree(path)):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and _named(node.value) not in ("self", "cls")):
                offenders.append(f"{module}:{node.lineno} .{node.attr}")
    assert offenders == []


def _public_definitions(tree: ast.Module) -> list[ast.AST]:
    """Public classes and functions, and the public methods of public classes."""
    found: list[ast.AST] = []
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in tree.body:
        if isinstance(node, kinds) and not node.name.startswith("_"):
            found.append(node)
            if isinstance(node, ast.ClassDef):
                found.extend(child for child in node.body
                             if isinstance(child, kinds) and not child.name.startswith("_"))
    return found


def test_every_public_function_of_the_shell_has_a_docstring() -> None:
    missing = [f"{module}.{node.name}"
               for module, path in MODULES.items()
               for node in _public_definitions(_tree(path))
               if not ast.get_docstring(node)]
    assert missing == []


def test_no_shell_module_is_over_the_size_limit() -> None:
    sizes = {module: len(path.read_text(encoding="utf-8").splitlines())
             for module, path in MODULES.items()}
    assert {module: size for module, size in sizes.items() if size > MAX_LINES} == {}


DISK_METHODS = sorted(name for name, value in vars(Disk).items()
                      if not name.startswith("_") and callable(value))


def test_disk_lists_the_methods_the_shell_calls() -> None:
    # Disk is made of declared methods, which VFS implements (tests/unit/test_surface.py); that
    # guard is only as good as this list: the shell's `vfs.xxx` calls are all in it.
    called = set()
    for path in MODULES.values():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Attribute) and _named(node.value) == "vfs":
                called.add(node.attr)
    assert called, "no vfs.<method> call found: the scan is broken"
    assert called <= set(DISK_METHODS)



def test_every_command_is_in_the_shell_reference() -> None:
    """docs/shell.md has a section per command, headed by its usage line exactly as `help`
    prints it, so a new command or option cannot ship undocumented."""
    reference = (ROOT / "docs" / "shell.md").read_text(encoding="utf-8")
    # The real table, every command module imported (one command of each).
    assert {"cd", "mkdir", "ls", "fsck", "mount", "serve"} <= set(COMMANDS)
    missing = [spec.usage for spec in COMMANDS.values()
               if f"### `{spec.usage}`" not in reference]
    assert missing == []
