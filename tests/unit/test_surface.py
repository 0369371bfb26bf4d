"""The public API is declared once (py_vfs/fs/surface.py): ``VFS`` implements every declared
method with the declared parameters, each wrapper (a step's tx, a writer view, a restricted
view) offers every method it is declared to offer, the Protocols (the shell's ``Disk``, the
copies' ``CopyHost``, a step's ``StepHost``) are the declared methods, and the page's protocol
(py_vfs/web/protocol.py's ``OPS``) and API (web/api.mjs, read as text) name nothing the
declaration does not know of, nor lack what it says they have."""

from __future__ import annotations

import inspect
import pydoc
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from py_vfs.fs.forwarding import WriterView
from py_vfs.fs.mount_copies import CopyHost
from py_vfs.fs.step import StepHost, StepTx
from py_vfs.fs.surface import DECLARED, Declared
from py_vfs.shell.disk import Disk
from py_vfs.vfs import VFS
from py_vfs.views.restricted import RestrictedView
from py_vfs.web.protocol import OPS

ROOT = Path(__file__).resolve().parents[2]

WRAPPERS: dict[type, Callable[[Declared], bool]] = {
    StepTx: lambda op: op.step,
    RestrictedView: lambda op: op.view,
    WriterView: lambda op: True,
}
# Operations of the protocol that are no method of the disk: transport by id (streams, steps,
# watches, exports and imports, views), the shell and Python runs, the preview, the page's
# stat cache, and what the worker answers itself.
# node:fs/promises' calls that the disk has no method for: made in the web layer from the
# disk's own calls (py_vfs/web/node_calls.py), with Node's results and errors.
NODE_CALLS = {"access", "mkdtemp", "chown", "lchown", "lutimes", "statfs", "link"}
# open()'s FileHandle and opendir()'s Dir: descriptors the web layer keeps
# (py_vfs/web/file_handles.py), made of the disk's reads, appends, stream writes and stats.
FILE_HANDLE_OPS = {"fileOpen", "fileRead", "fileWrite", "fileStat", "fileTruncate", "fileSync",
                   "fileClose", "fileChmod", "fileUtimes"}
# The disk's dock (py_vfs/web/dock_sync.py): the replica's round and status, which are the
# dock's, not the disk's (the disk's own ``sync`` catches up with other tabs).
DOCK_OPS = {"dockSync", "dockStatus"}
WIRE_ONLY = {
    "readChunk", "writeChunk", "finishWrite", "closeStream", "stepOp", "stepEnd", "unwatch",
    "exportOpen", "exportChunk", "importOpen", "importChunk", "importFinish", "releaseView",
    "previewRoot", "preview", "readdirStats", "shell", "runPython", "complete", "agentTool",
    "reset", "memoryUsage", "diagnostics", "fsaCounters", *NODE_CALLS, "readdirTree",
    *FILE_HANDLE_OPS, *DOCK_OPS,
}
# Methods of the page's VFS that are no method of the disk (the same families, and
# ``transferable``, a view of the whole disk to hand to another realm; the dock's sync,
# syncStatus and onSyncStatus).
PAGE_ONLY = {
    "transferable", "export", "import", "previewUrl", "shell", "runPython", "complete",
    "agentTool", "reset", "memoryUsage", "diagnostics", "fsaCounters", *NODE_CALLS,
    "open", "opendir", "sync", "syncStatus", "onSyncStatus",
}


def _parameters(function: Callable) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


def _same_as_declared(member: object, op: Declared, where: str) -> None:
    if isinstance(op.function, property):
        assert isinstance(member, property), f"{where}.{op.name} is not a property"
        return
    assert callable(member), f"{where}.{op.name} is not a method"
    assert inspect.iscoroutinefunction(member) == op.is_async, f"{where}.{op.name}: async?"
    assert _parameters(member) == _parameters(op.function), f"{where}.{op.name}: parameters"


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_vfs_implements_each_declared_method_with_its_docstring(name: str) -> None:
    op = DECLARED[name]
    member = vars(VFS)[name]
    _same_as_declared(member, op, "VFS")
    assert inspect.getdoc(member) == inspect.getdoc(op.function)
    assert inspect.getdoc(op.function), f"{name} has no docstring"


def test_help_shows_the_declared_docstring() -> None:
    assert "The whole file" in pydoc.render_doc(VFS.read_file)
    assert "The whole file" in pydoc.render_doc(StepTx.read_file)
    assert "``rename(2)``" in pydoc.render_doc(RestrictedView.rename)


@pytest.mark.parametrize("wrapper", WRAPPERS, ids=lambda cls: cls.__name__)
def test_every_wrapper_offers_what_it_is_declared_to_offer(wrapper: type) -> None:
    offers = WRAPPERS[wrapper]
    for op in DECLARED.values():
        member = inspect.getattr_static(wrapper, op.name, None)
        if offers(op):
            assert member is not None, f"{wrapper.__name__} lacks {op.name}"
            _same_as_declared(member, op, wrapper.__name__)
        else:
            assert member is None, f"{wrapper.__name__} offers {op.name}"


def test_a_view_cannot_open_a_scoop() -> None:
    """A scoop is made from the whole disk: a view offering it would widen itself."""
    assert not hasattr(RestrictedView, "scoop") and not hasattr(RestrictedView, "scoops")


@pytest.mark.parametrize("shape", [Disk, CopyHost, StepHost], ids=lambda cls: cls.__name__)
def test_the_protocols_are_the_declared_methods(shape: type) -> None:
    methods = {name: value for name, value in vars(shape).items()
               if not name.startswith("_") and callable(value)}
    assert methods
    assert all(value is DECLARED[name].function for name, value in methods.items())


def test_the_protocol_table_is_held_against_the_declaration() -> None:
    declared = {op.op for op in DECLARED.values() if op.op}
    ops = {op.name for op in OPS}
    assert ops - declared - WIRE_ONLY == set(), "operations the declaration lacks"
    assert declared - ops == set(), "declared operations the protocol lacks"
    assert declared & WIRE_ONLY == set()


def _page_methods() -> set[str]:
    """The public methods of web/api.mjs's ``VFS`` class, read from its text."""
    text = (ROOT / "web" / "api.mjs").read_text(encoding="utf-8")
    body = text[text.index("export class VFS {"):]
    body = body[:body.index("\n}\n")]
    found = set(re.findall(r"^  (?:async )?([A-Za-z]\w*)\(", body, re.MULTILINE))
    return found - {"constructor"}


def test_the_page_api_is_held_against_the_declaration() -> None:
    page = _page_methods()
    assert {"readFile", "writeFile", "step", "as"} <= page, "the page's methods were not read"
    declared = {op.js for op in DECLARED.values() if op.js}
    assert page - declared - PAGE_ONLY == set(), "page methods the declaration lacks"
    assert declared - page == set(), "declared methods the page lacks"
    assert declared & PAGE_ONLY == set()
