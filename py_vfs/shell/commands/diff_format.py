"""diff's two output formats for one pair of texts: GNU's normal format (`2c2`, `< old`,
`---`, `> new`) and the unified format (`--- A<TAB>time`, `@@ -1,2 +1,2 @@`), both from
difflib's opcodes (no junk heuristic), and GNU's time stamp in the unified header."""

from __future__ import annotations

import difflib
from datetime import UTC, datetime

NO_NEWLINE = "\\ No newline at end of file\n"


def lines(data: bytes) -> list[str]:
    """``data`` as lines with their newlines (bytes that are not UTF-8 kept as surrogates)."""
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def _range(start: int, end: int) -> str:
    return f"{start + 1}" if end - start == 1 else f"{start + 1},{end}"


def _side(mark: str, part: list[str]) -> str:
    return "".join(f"{mark} {line}" + ("" if line.endswith("\n") else "\n" + NO_NEWLINE)
                   for line in part)


def normal_diff(a: list[str], b: list[str]) -> str:
    """GNU diff's default output (`2c2`, `< old`, `---`, `> new`) of difflib's opcodes."""
    out = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace":
            out.append(f"{_range(i1, i2)}c{_range(j1, j2)}\n" + _side("<", a[i1:i2]) + "---\n"
                       + _side(">", b[j1:j2]))
        elif tag == "delete":
            out.append(f"{_range(i1, i2)}d{j1}\n" + _side("<", a[i1:i2]))
        elif tag == "insert":
            out.append(f"{i1}a{_range(j1, j2)}\n" + _side(">", b[j1:j2]))
    return "".join(out)


def stamp(mtime_ms: float | None) -> str:
    """A time as GNU diff's unified header shows it, in the local time zone:
    `2023-11-14 22:13:20.000000000 +0000`; None is now."""
    moment = (datetime.now(tz=UTC) if mtime_ms is None
              else datetime.fromtimestamp(mtime_ms / 1000, tz=UTC)).astimezone()
    return f"{moment:%Y-%m-%d %H:%M:%S}.{moment.microsecond * 1000:09d} {moment:%z}"


def unified_diff(a: list[str], b: list[str], names: tuple[str, str],
                 stamps: tuple[str, str], context: int) -> str:
    """The unified diff of ``a`` and ``b`` with ``context`` lines around each change, headed
    `--- NAME<TAB>STAMP` and `+++ NAME<TAB>STAMP`."""
    out = []
    for line in difflib.unified_diff(a, b, names[0], names[1], stamps[0], stamps[1],
                                     n=context):
        if line.startswith(("---", "+++")):
            out.append(line.rstrip("\n").replace(" \t", "\t", 1).replace("\t\t", "\t") + "\n")
        elif line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n" + NO_NEWLINE)
    return "".join(out)
