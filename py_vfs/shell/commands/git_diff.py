"""What changed between two states of a repository (a commit's tree, the index, the work tree)
and how git shows it: the patch (``diff --git``), ``--stat``, ``--name-only``,
``--name-status``, and the summary `git commit` prints. Exact renames are detected (same
content), as git's default detection finds them; line diffs are difflib's."""

from __future__ import annotations

import difflib
import os
import posixpath
import re
import stat as stat_module
from dataclasses import dataclass
from typing import Any

from dulwich.objects import Blob, Tree

from .git_base import quote_path

Side = dict[bytes, tuple[int, bytes]]  # path -> (mode, blob id)
ZERO = b"0" * 40
_FUNCNAME = re.compile(r"[A-Za-z_$]")


@dataclass
class Change:
    """One path's change: ``kind`` A, D, M or R (``old``/``new`` paths and modes, blob ids)."""

    kind: str
    old: bytes | None
    new: bytes | None
    old_mode: int = 0
    new_mode: int = 0
    old_id: bytes = ZERO
    new_id: bytes = ZERO
    score: int = 100  # a rename's similarity


class Contents:
    """Blob contents by id: the object store's, and the work tree's files hashed here."""

    def __init__(self, repo: Any) -> None:
        self.repo = repo
        self.loose: dict[bytes, bytes] = {}

    def get(self, blob_id: bytes) -> bytes:
        """The blob's bytes."""
        if blob_id in self.loose:
            return self.loose[blob_id]
        return self.repo.object_store[blob_id].data


def tree_side(repo: Any, tree_id: bytes | None, prefix: bytes = b"") -> Side:
    """Every file of a tree (recursively): path -> (mode, id)."""
    found: Side = {}
    if tree_id is None:
        return found
    tree = repo.object_store[tree_id]
    for entry in tree.iteritems():
        path = prefix + entry.path
        if stat_module.S_ISDIR(entry.mode):
            found.update(tree_side(repo, entry.sha, path + b"/"))
        else:
            found[path] = (entry.mode, entry.sha)
    return found


def index_side(index: Any) -> Side:
    """The index's entries (stage 0): path -> (mode, id)."""
    found: Side = {}
    for path, entry in index.iteritems():
        if hasattr(entry, "sha"):
            found[path] = (entry.mode, entry.sha)
    return found


def file_mode(info: os.stat_result) -> int:
    """The mode git records for a file of the work tree."""
    if stat_module.S_ISLNK(info.st_mode):
        return 0o120000
    return 0o100755 if info.st_mode & 0o100 else 0o100644


def worktree_side(repo: Any, index: Any, contents: Contents,
                  paths: list[bytes] | None = None) -> Side:
    """The work tree's versions of the index's files (or of ``paths``): a file whose size and
    mtime match its index entry keeps the entry's id, any other is hashed; missing files are
    left out."""
    found: Side = {}
    root = repo.path
    entries = index_side(index)
    for path in (paths if paths is not None else list(entries)):
        full = os.path.join(root, path.decode("utf-8", "surrogateescape"))
        try:
            info = os.lstat(full)
        except OSError:
            continue
        if stat_module.S_ISDIR(info.st_mode):
            continue
        mode = file_mode(info)
        entry = index[path] if path in entries else None
        if entry is not None and getattr(entry, "size", None) == info.st_size and \
                _same_time(entry.mtime, info) and entry.mode == mode:
            found[path] = (mode, entry.sha)
            continue
        data = os.readlink(full).encode("utf-8", "surrogateescape") \
            if mode == 0o120000 else _read(full)
        blob = Blob.from_string(data)
        contents.loose[blob.id] = data
        found[path] = (mode, blob.id)
    return found


def _same_time(mtime: Any, info: os.stat_result) -> bool:
    seconds = mtime[0] if isinstance(mtime, tuple) else int(mtime)
    return seconds == int(info.st_mtime)


def _read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def changes(old: Side, new: Side, renames: bool = True,
            contents: Contents | None = None) -> list[Change]:
    """The changes from ``old`` to ``new``, by path (a rename at its new path): exact renames,
    and with ``contents`` those at least half similar."""
    found: list[Change] = []
    added = [p for p in new if p not in old]
    deleted = [p for p in old if p not in new]
    for path in old:
        if path in new and old[path] != new[path]:
            found.append(Change("M", path, path, old[path][0], new[path][0], old[path][1],
                                new[path][1]))
    if renames:
        by_id: dict[bytes, list[bytes]] = {}
        for path in deleted:
            by_id.setdefault(old[path][1], []).append(path)
        for path in list(added):
            sources = by_id.get(new[path][1])
            if sources:
                source = sources.pop(0)
                deleted.remove(source)
                added.remove(path)
                found.append(Change("R", source, path, old[source][0], new[path][0],
                                    old[source][1], new[path][1]))
        if contents is not None and added and deleted and len(added) * len(deleted) <= 400:
            _similar(old, new, added, deleted, contents, found)
    found += [Change("A", None, p, 0, new[p][0], ZERO, new[p][1]) for p in added]
    found += [Change("D", p, None, old[p][0], 0, old[p][1], ZERO) for p in deleted]
    return sorted(found, key=lambda change: change.new or change.old or b"")


def _similar(old: Side, new: Side, added: list[bytes], deleted: list[bytes],
             contents: Contents, found: list[Change]) -> None:
    """Pairs each added file with the deleted one most like it (at least 50%), as git's
    rename detection does (a bounded number of pairs)."""
    scored = []
    for target in added:
        for source in deleted:
            score = similarity(contents.get(old[source][1]), contents.get(new[target][1]))
            if score >= 50:
                scored.append((-score, source, target))
    for minus, source, target in sorted(scored):
        if source in deleted and target in added:
            deleted.remove(source)
            added.remove(target)
            found.append(Change("R", source, target, old[source][0], new[target][0],
                                old[source][1], new[target][1], -minus))


def similarity(a: bytes, b: bytes) -> int:
    """How alike two contents are, 0 to 100: the bytes of their common lines over the larger
    size."""
    if not a and not b:
        return 100
    if is_binary(a) or is_binary(b) or max(len(a), len(b)) > 1 << 20:
        return 100 if a == b else 0
    left, right = a.splitlines(keepends=True), b.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    common = sum(len(line) for block in matcher.get_matching_blocks()
                 for line in left[block.a:block.a + block.size])
    return common * 100 // max(len(a), len(b))


def _text(path: bytes) -> str:
    return quote_path(path)


# Past this size a file's lines are not compared (difflib's time grows with the product of the
# two sides' lengths): its patch says `Binary files ... differ`, as for a binary file.
MAX_LINE_DIFF = 4 << 20


def is_binary(data: bytes) -> bool:
    """Whether ``data`` is compared as a binary file: it holds a NUL in its first 8000 bytes
    (git's test), or it is over ``MAX_LINE_DIFF`` bytes."""
    return b"\0" in data[:8000] or len(data) > MAX_LINE_DIFF


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def line_counts(change: Change, contents: Contents) -> tuple[int, int] | None:
    """(insertions, deletions) of a change; None for a binary file."""
    old = contents.get(change.old_id) if change.old_id != ZERO else b""
    new = contents.get(change.new_id) if change.new_id != ZERO else b""
    if is_binary(old) or is_binary(new):
        return None
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, _lines(old), _lines(new), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed


def patch(change: Change, contents: Contents, context: int = 3) -> str:
    """One change as `git diff` prints it."""
    a = (change.old or change.new or b"").decode("utf-8", "surrogateescape")
    b = (change.new or change.old or b"").decode("utf-8", "surrogateescape")
    head = [f"diff --git {quote_path('a/' + a)} {quote_path('b/' + b)}\n"]
    short = (change.old_id[:7].decode(), change.new_id[:7].decode())
    if change.kind == "A":
        head.append(f"new file mode {change.new_mode:06o}\n")
        head.append(f"index {short[0]}..{short[1]}\n")
    elif change.kind == "D":
        head.append(f"deleted file mode {change.old_mode:06o}\n")
        head.append(f"index {short[0]}..{short[1]}\n")
    else:
        if change.old_mode != change.new_mode:
            head.append(f"old mode {change.old_mode:06o}\nnew mode {change.new_mode:06o}\n")
        if change.kind == "R":
            head.append(f"similarity index {change.score}%\nrename from {quote_path(a)}\n"
                        f"rename to {quote_path(b)}\n")
        if change.old_id != change.new_id:
            mode = f" {change.new_mode:06o}" if change.old_mode == change.new_mode else ""
            head.append(f"index {short[0]}..{short[1]}{mode}\n")
    if change.old_id == change.new_id:
        return "".join(head)
    old = contents.get(change.old_id) if change.old_id != ZERO else b""
    new = contents.get(change.new_id) if change.new_id != ZERO else b""
    left = quote_path(f"a/{a}") if change.kind != "A" else "/dev/null"
    right = quote_path(f"b/{b}") if change.kind != "D" else "/dev/null"
    if is_binary(old) or is_binary(new):
        return "".join(head) + f"Binary files {left} and {right} differ\n"
    if not old and not new:
        return "".join(head)
    head.append(f"--- {left}\n+++ {right}\n")
    return "".join(head) + hunks(_lines(old), _lines(new), context)


def hunks(a: list[str], b: list[str], context: int) -> str:
    """The unified hunks of ``a`` to ``b`` with git's headers (the function line after)."""
    out = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        header = f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@"
        function = _function_line(a, i1)
        out.append(f"{header} {function}\n" if function else f"{header}\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out += [_line(" ", line) for line in a[x1:x2]]
                continue
            out += [_line("-", line) for line in a[x1:x2]]
            out += [_line("+", line) for line in b[y1:y2]]
    return "".join(out)


def _range(start: int, end: int) -> str:
    length = end - start
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1 if length else start},{length}"


def _line(mark: str, line: str) -> str:
    if line.endswith("\n"):
        return mark + line
    return f"{mark}{line}\n\\ No newline at end of file\n"


def _function_line(lines: list[str], start: int) -> str:
    """The line git names after a hunk's header: the nearest one before the hunk that starts
    with a letter, ``_`` or ``$`` (its first 80 bytes)."""
    for index in range(start - 1, -1, -1):
        if _FUNCNAME.match(lines[index]):
            return lines[index].rstrip("\n")[:80].rstrip()
    return ""


def name_status(change: Change) -> str:
    """A `--name-status` line."""
    if change.kind == "R":
        return f"R{change.score:03d}\t{_text(change.old or b'')}\t{_text(change.new or b'')}\n"
    return f"{change.kind}\t{_text(change.new or change.old or b'')}\n"


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def summary_line(files: int, added: int, removed: int) -> str:
    """` N files changed, X insertions(+), Y deletions(-)` as git words it."""
    parts = [f" {_plural(files, 'file changed', 'files changed')}"]
    if added or not removed:
        parts.append(_plural(added, "insertion(+)", "insertions(+)"))
    if removed or not added:
        parts.append(_plural(removed, "deletion(-)", "deletions(-)"))
    return ", ".join(parts) + "\n"


def stat(found: list[Change], contents: Contents, width: int = 80) -> str:
    """`--stat`: a line per file with its count and +/- graph, then the summary."""
    rows = []
    added_all = removed_all = 0
    for change in found:
        name = _text(change.new or change.old or b"")
        if change.kind == "R":
            name = _rename_name(_text(change.old or b""), name)
        counts = line_counts(change, contents)
        if counts is None:
            rows.append((name, "Bin", ""))
            continue
        added, removed = counts
        added_all += added
        removed_all += removed
        rows.append((name, str(added + removed), (added, removed)))
    if not rows:
        return ""
    name_width = max(len(row[0]) for row in rows)
    count_width = max(len(row[1]) for row in rows)
    room = max(width - name_width - count_width - 6, 10)
    biggest = max((sum(row[2]) for row in rows if row[2]), default=0)
    out = []
    for name, count, counts in rows:
        line = f" {name.ljust(name_width)} | {count.rjust(count_width)}"
        if counts:
            plus, minus = counts
            if biggest > room:
                plus, minus = _scaled(plus, biggest, room), _scaled(minus, biggest, room)
            line += " " + "+" * plus + "-" * minus
        out.append(line.rstrip() + "\n" if not counts else line + "\n")
    out.append(summary_line(len(rows), added_all, removed_all))
    return "".join(out)


def _scaled(count: int, biggest: int, room: int) -> int:
    return 0 if not count else max(1, count * room // biggest)


def _rename_name(old: str, new: str) -> str:
    """A rename as git's stat names it: ``old => new``, or the common part braced
    (``dir/{a => b}``)."""
    prefix = posixpath.commonpath([old, new]) if "/" in old and "/" in new else ""
    if prefix and old.startswith(prefix + "/") and new.startswith(prefix + "/"):
        return f"{prefix}/{{{old[len(prefix) + 1:]} => {new[len(prefix) + 1:]}}}"
    return f"{old} => {new}"


def commit_summary(found: list[Change], contents: Contents) -> str:
    """What `git commit` prints after its first line: the summary and the created, deleted
    and renamed files."""
    if not found:
        return ""
    added_all = removed_all = 0
    for change in found:
        counts = line_counts(change, contents) or (0, 0)
        added_all += counts[0]
        removed_all += counts[1]
    return summary_line(len(found), added_all, removed_all) + _notes(found)


def merge_summary(found: list[Change], contents: Contents) -> str:
    """What `git merge` prints after it: the stat and the created, deleted, renamed files."""
    return stat(found, contents) + _notes(found)


def _notes(found: list[Change]) -> str:
    notes = []
    for change in found:
        if change.kind == "A":
            notes.append(f" create mode {change.new_mode:06o} {_text(change.new or b'')}\n")
        elif change.kind == "D":
            notes.append(f" delete mode {change.old_mode:06o} {_text(change.old or b'')}\n")
        elif change.kind == "R":
            name = _rename_name(_text(change.old or b""), _text(change.new or b""))
            notes.append(f" rename {name} ({change.score}%)\n")
        elif change.old_mode != change.new_mode:
            notes.append(f" mode change {change.old_mode:06o} => {change.new_mode:06o} "
                         f"{_text(change.new or b'')}\n")
    return "".join(notes)


def empty_tree_id() -> bytes:
    """The id of the empty tree."""
    return Tree().id
