"""The JS<->Python protocol, declared once: every operation the page can send and the shared
constants (the messages that carry them: core/messages.py, rendered with them).

Each ``Op`` says its name, its arguments (name, kind, optional), which argument carries file
content (its buffer is transferred to the worker, never cloned), whether it changes the disk
(the page's stat cache drops its answers for those), whether the stat cache may answer it,
whether it may run inside a step, which option keys it honours (any other key is refused, not
ignored), whether the page may send it again after a failover (``retryable``), and where it is
answered (``python``: ``WebAPI``; ``worker``: web/worker/worker.mjs
itself).

The JS side is generated from this module at build time: build/build.py writes
``protocol.mjs`` (``render_js``) into dist/ beside the page's modules and into the preview site,
and web/pyvfs.mjs, web/worker/worker.mjs, web/page/stat_cache.mjs, web/page/validate.mjs and
the preview relay import it from there. It is never written into the source tree nor kept in
git, so it cannot go stale; the Pyodide tier imports the page's modules from dist/ for the same
reason. Adding an operation is one entry in ``OPS`` (plus its Python function in ``WebAPI``).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any

from ..agent import SPECS as AGENT_SPECS
from ..core import messages
from ..disk.content import CHUNK_SIZE
from ..disk.writers import MAX_WRITER
from ..storage import LOG_KEEP
from ..vfs import FORMAT_VERSION

# The version of the messages between the app page, the preview relay frame and the preview
# service worker (docs/preview.md). A new version when their shape changes.
PREVIEW_PROTOCOL = 3
# Content arguments at least this large go to the worker as one copy whose buffer is
# transferred (a structured clone makes two copies).
TRANSFER_MIN = 64 * 1024
# Node's fs.constants on Linux (the JS API's ``constants``): open flags, file types and
# permission bits, access modes and copyFile's flags.
FS_CONSTANTS = {
    "UV_FS_SYMLINK_DIR": 1, "UV_FS_SYMLINK_JUNCTION": 2, "O_RDONLY": 0, "O_WRONLY": 1,
    "O_RDWR": 2, "UV_DIRENT_UNKNOWN": 0, "UV_DIRENT_FILE": 1, "UV_DIRENT_DIR": 2,
    "UV_DIRENT_LINK": 3, "UV_DIRENT_FIFO": 4, "UV_DIRENT_SOCKET": 5, "UV_DIRENT_CHAR": 6,
    "UV_DIRENT_BLOCK": 7, "S_IFMT": 0o170000, "S_IFREG": 0o100000, "S_IFDIR": 0o040000,
    "S_IFCHR": 0o020000, "S_IFBLK": 0o060000, "S_IFIFO": 0o010000, "S_IFLNK": 0o120000,
    "S_IFSOCK": 0o140000, "O_CREAT": 0o100, "O_EXCL": 0o200, "UV_FS_O_FILEMAP": 0,
    "O_NOCTTY": 0o400, "O_TRUNC": 0o1000, "O_APPEND": 0o2000, "O_DIRECTORY": 0o200000,
    "O_NOATIME": 0o1000000, "O_NOFOLLOW": 0o400000, "O_SYNC": 0o4010000, "O_DSYNC": 0o10000,
    "O_DIRECT": 0o40000, "O_NONBLOCK": 0o4000, "S_IRWXU": 0o700, "S_IRUSR": 0o400,
    "S_IWUSR": 0o200, "S_IXUSR": 0o100, "S_IRWXG": 0o70, "S_IRGRP": 0o40, "S_IWGRP": 0o20,
    "S_IXGRP": 0o10, "S_IRWXO": 0o7, "S_IROTH": 0o4, "S_IWOTH": 0o2, "S_IXOTH": 0o1,
    "F_OK": 0, "R_OK": 4, "W_OK": 2, "X_OK": 1, "UV_FS_COPYFILE_EXCL": 1, "COPYFILE_EXCL": 1,
    "UV_FS_COPYFILE_FICLONE": 2, "COPYFILE_FICLONE": 2, "UV_FS_COPYFILE_FICLONE_FORCE": 4,
    "COPYFILE_FICLONE_FORCE": 4}
COPYFILE_EXCL = FS_CONSTANTS["COPYFILE_EXCL"]
COPYFILE_FICLONE = FS_CONSTANTS["COPYFILE_FICLONE"]
COPYFILE_FICLONE_FORCE = FS_CONSTANTS["COPYFILE_FICLONE_FORCE"]
# Node's file-open flags by name, each with the one it means ("rs" reads as "r": every write
# here is synchronous already); py_vfs/web/open_flags.py says what each does.
OPEN_FLAGS = {
    "r": "r", "rs": "r", "sr": "r", "r+": "r+", "rs+": "r+", "sr+": "r+",
    "w": "w", "wx": "wx", "xw": "wx", "w+": "w+", "wx+": "wx+", "xw+": "wx+",
    "a": "a", "ax": "ax", "xa": "ax", "as": "a", "sa": "a",
    "a+": "a+", "ax+": "ax+", "xa+": "ax+", "as+": "a+", "sa+": "a+"}
# The owner every file has (no users here): Stats' uid and gid, and the only owner chown takes.
OWNER_ID = 1000
# The durabilities openVFS takes ("open" message, docs/storage.md), as IndexedDB offers them to a
# readwrite transaction: "default" (the browser's choice, "relaxed" in Chromium since 121),
# "strict" (complete only once flushed to the disk), "relaxed".
DURABILITIES = ("default", "strict", "relaxed")
# The encodings of Node's Buffer that readFile, writeFile and appendFile take (py_vfs/web/
# encodings.py), matched without regard to case; readlink, realpath and readdir take utf8 only.
ENCODINGS = ("utf8", "utf-8", "latin1", "binary", "ascii", "utf16le", "utf-16le", "ucs2",
             "ucs-2", "base64", "base64url", "hex")
# The codes an error envelope may carry, with the errno Node gives them on Linux (negative, as
# libuv's). Written out, not taken from the errno module: under Pyodide that is Emscripten's
# numbering (ENOENT is 44 there), which no JS caller expects.
ERRNO = {"EPERM": -1, "ENOENT": -2, "EIO": -5, "EBADF": -9, "EAGAIN": -11, "EACCES": -13,
         "EBUSY": -16, "EEXIST": -17, "EXDEV": -18, "ENOTDIR": -20, "EISDIR": -21, "EINVAL": -22,
         "EFBIG": -27, "ENOSPC": -28, "EROFS": -30, "EDEADLK": -35, "ENAMETOOLONG": -36,
         "ENOSYS": -38, "ENOTEMPTY": -39, "ELOOP": -40, "ENOTSUP": -95, "ETIMEDOUT": -110,
         "ENOTCONN": -107, "EPROTO": -71,
         "ECANCELED": -125}
# The fields of an error envelope, the same in every reply that crosses a boundary (WebAPI,
# the worker, web/worker/fsa.mjs, web/worker/idb_store.mjs, the page's answers to the worker).
# Who a call is made by when the page names no one, and the call envelope's field naming it.
DEFAULT_WRITER = "user"
CALL_WRITER = "writer"
# The call envelope's field saying the page may cancel the call (it was given an AbortSignal).
CALL_SIGNAL = "cancellable"
# The call envelope's fields of a call that may change the disk: its request id, unique across
# pages and time, which the journal entry of its commit records; and, when the page sends it
# again after the runtime that ran it went, the wall time it was first sent (web/retries.py).
CALL_REQUEST = "request"
CALL_RETRY = "retry"
ERROR_FIELDS = ("code", "errno", "syscall", "path", "dest", "message", "hint")

# Argument kinds (web/page/validate.mjs checks them as Node does, in the page): "path" (a string),
# "content" (a string, TypedArray or DataView), "options" (an object; a string is
# {encoding}), "number", "string", "bool", "mode" (an integer or an octal string), "time" (a
# Date or seconds), "copymode" (copyFile's COPYFILE_* flags), "linktype" (symlink's type),
# "any", "state" (a snapshot name, a revision number, {revision} or {before: a Date, ms or ISO
# text}), "writer" (a writer's name, as writers.check_writer). Option kinds: "bool", "truthy"
# (any value, read as a boolean, as Node reads it),
# "number", "mode", "any", "encoding" (one of ENCODINGS), "utf8"
# (utf8 only: the text is stored as UTF-8), "flag" (the file-open flag, only the one the call
# means: "r" to read, "w" or "a" to write, "a" to append), "false" (Node's option, honoured
# only at its default, false), "when" (a Date, ms since 1970 or ISO 8601 text), "path",
# "content", "strings" (an array of strings).
#
# The call envelope the page posts to the worker is {type: "call", id, op, args, writer}:
# ``writer`` (CALL_WRITER, default DEFAULT_WRITER) names who the call's changes are made by
# (``vfs.as(writer)`` in web/api.mjs); WebAPI.call runs the call under that writer.
# ``cancellable`` (CALL_SIGNAL) is true when the call was given an AbortSignal: when it aborts,
# the page posts {type: "cancel", id}; the worker drops the call if it has not reached Python
# yet, else WebAPI.cancel(id) marks the call's ``Signal`` (core/cancel.py) and it stops at its
# next safe point with ECANCELED, which the page rejects with Node's AbortError.
# ``request`` (CALL_REQUEST) is the request id the page gives every call that may change the
# disk (``mutating``): ``<the client's random key>:<a counter>``; WebAPI.call runs the call
# under it (``transaction.REQUEST``) and the journal entry of its commit lists it
# (``requests``). ``retry`` (CALL_RETRY): the call is sent again, after the tab that ran the
# disk's Python went (web/page/reconnecting.mjs), first sent at this wall time (ms since 1970);
# only a ``retryable`` operation is, and the worker answers it as applied when the journal has
# its request id, else runs it (py_vfs/web/retries.py).


@dataclass(frozen=True)
class Op:
    """One operation of the protocol; see the module docstring."""

    name: str
    args: tuple[tuple[str, str, bool], ...]
    mutating: bool = False
    cached: bool = False
    in_step: bool = True
    options: dict[str, str] = field(default_factory=dict)
    home: str = "python"
    opens_view: bool = False  # answers a child API's id: the worker gives the page its port
    # Sent again after a failover with its request id (web/retries.py): its whole effect is one
    # commit of the disk (or none) and its answer is void.
    retryable: bool = False

    @property
    def content(self) -> int:
        """The position of the argument that carries file content, or -1."""
        kinds = [kind for _, kind, _ in self.args]
        return kinds.index("content") if "content" in kinds else -1

    def to_js(self) -> dict[str, Any]:
        """The entry of this operation in the generated protocol.mjs's OPS."""
        return {"args": [list(arg) for arg in self.args], "mutating": self.mutating,
                "cached": self.cached, "inStep": self.in_step, "options": self.options,
                "content": self.content, "home": self.home, "opensView": self.opens_view,
                "retryable": self.retryable}


def _args(spec: str) -> tuple[tuple[str, str, bool], ...]:
    """``"path:path options:options?"`` -> ((name, kind, optional), ...)."""
    out = []
    for word in spec.split():
        name, kind = word.split(":")
        out.append((name, kind.rstrip("?"), kind.endswith("?")))
    return tuple(out)


def _op(name: str, spec: str = "", **rest: Any) -> Op:
    return Op(name, _args(spec), **rest)


_READ_OPTIONS = {"encoding": "encoding", "flag": "flag"}
_WRITE_OPTIONS = {"encoding": "encoding", "mode": "mode", "flag": "flag"}
_ENCODING_ONLY = {"encoding": "utf8"}
_NOT_IN_STEP = {"in_step": False}

OPS: tuple[Op, ...] = (
    _op("readFile", "path:path options:options?", options=_READ_OPTIONS),
    _op("writeFile", "path:path data:content options:options?", mutating=True, retryable=True,
        options=_WRITE_OPTIONS),
    _op("appendFile", "path:path data:content options:options?", mutating=True, retryable=True,
        options=_WRITE_OPTIONS),
    _op("truncate", "path:path len:number?", mutating=True, retryable=True),
    _op("mkdir", "path:path options:options?", mutating=True, retryable=True,
        options={"recursive": "bool", "mode": "mode"}),
    _op("rm", "path:path options:options?", mutating=True, retryable=True,
        options={"recursive": "bool", "force": "bool", "maxRetries": "number",
                 "retryDelay": "number"}),
    _op("rmdir", "path:path options:options?", mutating=True, retryable=True,
        options={"recursive": "false", "maxRetries": "number", "retryDelay": "number"}),
    _op("unlink", "path:path", mutating=True, retryable=True),
    _op("rename", "oldPath:path newPath:path", mutating=True, retryable=True),
    _op("copyFile", "src:path dest:path mode:copymode?", mutating=True, retryable=True),
    _op("cp", "src:path dest:path options:options?", mutating=True, retryable=True,
        options={"recursive": "bool"}),
    _op("symlink", "target:path path:path type:linktype?", mutating=True, retryable=True),
    _op("readlink", "path:path options:options?", options=_ENCODING_ONLY),
    _op("realpath", "path:path options:options?", options=_ENCODING_ONLY),
    _op("stat", "path:path options:options?", cached=True, options={"bigint": "false"}),
    _op("lstat", "path:path options:options?", cached=True, options={"bigint": "false"}),
    _op("exists", "path:path", cached=True),
    _op("readdir", "path:path options:options?", cached=True,
        options={"withFileTypes": "truthy", "encoding": "utf8", "recursive": "truthy"}),
    # The page's readdir when it may fill its stat cache: names with their stats
    # (py_vfs/web/page_cache.py, `listing`); `siblings`: the listings of the directories after
    # it in its parent too (a walk).
    _op("readdirStats", "path:path options:options?", cached=True, options={"siblings": "bool"}),
    _op("chmod", "path:path mode:mode", mutating=True, retryable=True),
    _op("utimes", "path:path atime:time mtime:time", mutating=True, retryable=True),
    # More of node:fs/promises (py_vfs/web/node_calls.py): access with F_OK/R_OK/W_OK/X_OK,
    # mkdtemp, owners (one user: only OWNER_ID or -1), times of a link itself, the disk's
    # statfs, hard links (refused), and a recursive readdir (Node 20's order).
    _op("access", "path:path mode:number?"),
    _op("mkdtemp", "prefix:path options:options?", mutating=True, options=_ENCODING_ONLY),
    _op("chown", "path:path uid:number gid:number", mutating=True, retryable=True),
    _op("lchown", "path:path uid:number gid:number", mutating=True, retryable=True),
    _op("lutimes", "path:path atime:time mtime:time", mutating=True, retryable=True),
    _op("statfs", "path:path options:options?", options={"bigint": "false"}),
    _op("link", "existingPath:path newPath:path", mutating=True, retryable=True),
    _op("readdirTree", "path:path options:options?",
        options={"withFileTypes": "truthy", "encoding": "utf8", "recursive": "truthy"}),
    _op("walk", "path:path?"),
    _op("du", "path:path?"),
    _op("ls", "prefix:path?"),
    _op("find", "directory:path? pattern:string?"),
    _op("glob", "pattern:string"),
    _op("grep", "pattern:string path:path? options:options?",
        options={"regex": "bool", "ignoreCase": "bool", "include": "any",
                 "maxResults": "number", "maxFileSize": "number"}),
    # A shell line (py_vfs/web/shell.py). With ``stream`` (the page's ``onOutput``) the worker
    # adds a third argument, the function that posts {type: "output", id, stream, data} to the
    # page as output is written; the page acknowledges each with {type: "outputAck", id,
    # bytes}, and the function makes Python wait while too much is unacknowledged. With
    # ``input`` (the page's ``input``), a fourth: read(raw), which posts {type: "inputWanted",
    # id} ({id, raw: true}: the keys as typed, for `less`) and resolves to the page's {type:
    # "input", id, data} (null data: the end). ``rows`` and ``cols``: the terminal's size.
    _op("shell", "line:string options:options?", mutating=True,
        options={"stream": "bool", "isatty": "bool", "interactive": "bool", "input": "bool",
                 "rows": "number", "cols": "number"},
        **_NOT_IN_STEP),
    # Python code run as the shell's `python -c CODE ARG...` (py_vfs/web/shell.py), with the
    # shell call's streams: ``stream`` and ``input`` add the same third and fourth arguments.
    _op("runPython", "code:string options:options?", mutating=True,
        options={"cwd": "path", "args": "strings", "stdin": "content", "stream": "bool",
                 "input": "bool"}, **_NOT_IN_STEP),
    # Tab completion of the shell's line at the cursor (py_vfs/shell/complete.py).
    _op("complete", "line:string cursor:number", **_NOT_IN_STEP),
    # Read-only SQL over the disk's metadata (py_vfs/data/query.py, docs/data.md).
    _op("query", "sql:string params:any? options:options?", options={"limit": "number"}),
    # The disk's history (py_vfs/disk/journal.py, snapshots.py; docs/data.md), answered by
    # py_vfs/web/history.py. A state is a snapshot name, a revision, {revision} or {before}.
    _op("journal", "options:options?", options={"since": "when", "until": "when",
                                                "writer": "writer", "path": "path",
                                                "limit": "number"}, **_NOT_IN_STEP),
    _op("snapshot", "name:string", mutating=True, **_NOT_IN_STEP),
    _op("snapshots", "", **_NOT_IN_STEP),
    _op("deleteSnapshot", "name:string", mutating=True, **_NOT_IN_STEP),
    _op("diff", "a:state b:state?", **_NOT_IN_STEP),
    _op("restore", "state:state options:options?", mutating=True, options={"path": "path"},
        **_NOT_IN_STEP),
    # A read of the disk as it was in a state (py_vfs/data/past.py; web/history.py's PAST_CALLS:
    # readFile, readdir, stat, lstat, readlink, realpath, exists).
    _op("readAt", "state:state call:string path:path options:options?",
        options={"encoding": "encoding", "withFileTypes": "bool"}, **_NOT_IN_STEP),
    _op("preview", "request:any", **_NOT_IN_STEP),
    _op("openRead", "path:path start:number? end:number?"),
    _op("readChunk", "stream:number"),
    _op("openWrite", "path:path options:options?", mutating=True,
        options={"encoding": "utf8", "mode": "mode", "flag": "flag"},
        **_NOT_IN_STEP),
    _op("writeChunk", "stream:number data:content", mutating=True, **_NOT_IN_STEP),
    _op("finishWrite", "stream:number", mutating=True, **_NOT_IN_STEP),
    _op("closeStream", "stream:number", mutating=True),
    # FileHandle (py_vfs/web/file_handles.py): open answers a descriptor, the others take it.
    _op("fileOpen", "path:path flags:any? mode:mode?", mutating=True, **_NOT_IN_STEP),
    _op("fileRead", "fd:number length:number position:number?", **_NOT_IN_STEP),
    _op("fileWrite", "fd:number data:content position:number?", mutating=True,
        **_NOT_IN_STEP),
    _op("fileStat", "fd:number", **_NOT_IN_STEP),
    _op("fileTruncate", "fd:number len:number?", mutating=True, **_NOT_IN_STEP),
    _op("fileSync", "fd:number", mutating=True, **_NOT_IN_STEP),
    _op("fileClose", "fd:number", mutating=True, **_NOT_IN_STEP),
    _op("fileChmod", "fd:number mode:mode", mutating=True, **_NOT_IN_STEP),
    _op("fileUtimes", "fd:number atime:time mtime:time", mutating=True, **_NOT_IN_STEP),
    _op("check", "options:options?"),
    _op("usage", "options:options?"),
    _op("gc", "options:options?", mutating=True, options={"graceMs": "number"}),
    # Puts the shipped default content back (py_vfs/defaults.py, docs/defaults.md).
    _op("reset", "options:options?", mutating=True, options={"defaults": "bool"},
        **_NOT_IN_STEP),
    _op("mount", "path:path handle:any options:options?", mutating=True,
        options={"readOnly": "bool"}, **_NOT_IN_STEP),
    _op("unmount", "path:path", mutating=True, **_NOT_IN_STEP),
    _op("reconnect", "path:path handle:any? options:options?", mutating=True,
        options={"readOnly": "bool"}, **_NOT_IN_STEP),
    # One use of an agent tool (py_vfs/agent.py; web/page/agent_tools.mjs): name, input.
    _op("agentTool", "name:string input:any options:options?", mutating=True,
        options={"caps": "any", "workspace": "string"}, **_NOT_IN_STEP),
    _op("mounts", ""),
    _op("mountInfo", "path:path"),
    # A step: begin, its operations (by name), end; watch and unwatch pass while one is open.
    _op("stepBegin", "", mutating=True),
    _op("stepOp", "step:number op:string args:any", mutating=True),
    _op("stepEnd", "step:number commit:bool", mutating=True),
    _op("watch", "watch:number path:path options:options?", options={"recursive": "bool"}),
    _op("unwatch", "watch:number"),
    # Another tab committed: catch up (the worker sends it, never the page).
    _op("sync", "", mutating=True, **_NOT_IN_STEP),
    # The disk's dock (py_vfs/web/dock_sync.py, docs/dock.md): the page's vfs.sync() (a round
    # with the dock: push, pull) and vfs.syncStatus().
    _op("dockSync", "options:options?", mutating=True, options={"confirm": "bool"},
        **_NOT_IN_STEP),
    _op("dockStatus", "", **_NOT_IN_STEP),
    # The disk as data (archives/archive.py, docs/data.md): an export is a stream the page pulls
    # one chunk at a time (closeStream cancels it); an import is pushed the same way, then
    # made in one step by importFinish.
    _op("exportOpen", "path:path options:options?", options={"format": "any"}, **_NOT_IN_STEP),
    _op("exportChunk", "stream:number", **_NOT_IN_STEP),
    _op("importOpen", "options:options?", options={"format": "any", "into": "any"},
        **_NOT_IN_STEP),
    _op("importChunk", "stream:number data:content", **_NOT_IN_STEP),
    _op("importFinish", "stream:number", mutating=True, **_NOT_IN_STEP),
    # Restricted views (py_vfs/web/views.py, docs/sandbox.md): the worker answers the page
    # with a MessagePort bound to the view; a view's previewUrl mints through its own port.
    _op("restrict", "options:options", options={"read": "any", "write": "any",
                                                 "writer": "writer"},
        opens_view=True, **_NOT_IN_STEP),
    _op("scoop", "name:string options:options?", options={"network": "bool"}, mutating=True,
        opens_view=True, **_NOT_IN_STEP),
    _op("previewRoot", "path:path kind:string", **_NOT_IN_STEP),
    _op("releaseView", "view:number", **_NOT_IN_STEP),
    # Answered by the worker without Python.
    _op("memoryUsage", "", home="worker", **_NOT_IN_STEP),
    _op("diagnostics", "", home="worker", **_NOT_IN_STEP),
    _op("fsaCounters", "", home="worker", **_NOT_IN_STEP),
)
BY_NAME: dict[str, Op] = {op.name: op for op in OPS}
# Operations that belong to a step, or must pass while one is open (else they would wait for it).
STEP_OPS = frozenset({"stepBegin", "stepOp", "stepEnd", "watch", "unwatch"})
# Operations a step's tx does not offer: they would run on the outer VFS and wait for the step.
NOT_IN_STEP = frozenset(op.name for op in OPS if not op.in_step)
# Operations WebAPI answers (the rest are the worker's own).
PYTHON_OPS = frozenset(op.name for op in OPS if op.home == "python")


def error_envelope(code: str, message: str, *, syscall: str | None = None,
                   path: str | None = None, dest: str | None = None,
                   hint: str | None = None) -> dict[str, Any]:
    """The one error shape: ``{code, errno, syscall, path, dest, message, hint}``
    (web/shared/errors.mjs builds and reads the same)."""
    return {"code": code, "errno": ERRNO.get(code), "syscall": syscall, "path": path,
            "dest": dest, "message": message, "hint": hint}


CONSTANTS = {"CHUNK_SIZE": CHUNK_SIZE, "FORMAT_VERSION": FORMAT_VERSION, "LOG_KEEP": LOG_KEEP,
             "PREVIEW_PROTOCOL": PREVIEW_PROTOCOL, "TRANSFER_MIN": TRANSFER_MIN,
             "DEFAULT_WRITER": DEFAULT_WRITER, "CALL_WRITER": CALL_WRITER,
             "CALL_SIGNAL": CALL_SIGNAL, "CALL_REQUEST": CALL_REQUEST, "CALL_RETRY": CALL_RETRY,
             "MAX_WRITER": MAX_WRITER,
             "COPYFILE_EXCL": COPYFILE_EXCL, "COPYFILE_FICLONE": COPYFILE_FICLONE,
             "COPYFILE_FICLONE_FORCE": COPYFILE_FICLONE_FORCE, "OWNER_ID": OWNER_ID,
             "FS_CONSTANTS": FS_CONSTANTS, "OPEN_FLAGS": OPEN_FLAGS}

def render_js() -> str:
    """The text of ``protocol.mjs``, which the build writes into the page and the preview site."""
    lines = ["// GENERATED by build/build.py from py_vfs/web/protocol.py: do not edit.",
             "// The JS<->Python protocol: operations, messages and shared constants (see that"
             "// module and py_vfs/core/messages.py).",
             ""]
    for name, value in CONSTANTS.items():
        lines.append(f"export const {name} = {json.dumps(value)};")
    lines.append(f"export const ENCODINGS = Object.freeze({json.dumps(list(ENCODINGS))});")
    lines.append(f"export const DURABILITIES = Object.freeze({json.dumps(list(DURABILITIES))});")
    lines.append(f"export const ERRNO = Object.freeze({json.dumps(ERRNO)});")
    lines.append(f"export const ERROR_FIELDS = Object.freeze({json.dumps(list(ERROR_FIELDS))});")
    lines.extend(messages.render_js())
    lines.append("export const OPS = Object.freeze({")
    for op in OPS:
        lines.append(f"  {op.name}: {json.dumps(op.to_js())},")
    lines.append("});")
    tools = {name: {"description": text, "inputSchema": schema}
             for name, (text, schema) in AGENT_SPECS.items()}
    lines.append("// The agent tools' descriptions and input schemas (py_vfs/agent.py).")
    lines.append(f"export const AGENT_TOOLS = Object.freeze({json.dumps(tools)});")
    lines.append("// Operations that change nothing the page's stat cache holds.")
    lines.append("export const READ_ONLY = new Set(")
    lines.append("  Object.keys(OPS).filter((op) => !OPS[op].mutating));")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(render_js())
