"""The pages `man` prints: a command's section of the shell's reference, docs/shell.md, and the
topic pages of ``pages/`` (``man skill``, ``man jsh``, ``man scoop``).

The reference ships inside the package: ``pages/shell.md`` is a link to docs/shell.md in the
repository, which every wheel build follows (flit_core copies the file it points to; the sdist
carries docs/shell.md beside the link), so ``man`` reads it from the installed package on
CPython and in Pyodide, and through the link in a checkout. The reference is read once per
process.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

PAGES = "pages"  # this package's folder of pages
REFERENCE = "shell.md"  # in PAGES: a link to docs/shell.md, followed by the wheel's build
TOPICS = ("jsh", "scoop", "skill")  # PAGES/<topic>.md, written for `man`
COMMANDS_HEADING = "## Commands"
_SECTION = re.compile(r"^### `(?P<usage>[^`]+)`\s*$")


def _packaged(name: str) -> str | None:
    """The text of ``PAGES/name`` in the installed package, or None."""
    try:
        return resources.files(__package__).joinpath(PAGES, name).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None


@functools.cache
def reference() -> str | None:
    """docs/shell.md as the package holds it; None when it is missing."""
    return _packaged(REFERENCE)


@functools.lru_cache(maxsize=2)
def _sections(text: str) -> dict[str, str]:
    """Command name -> its section of the reference ``text``'s "Commands", the heading's usage
    line first, without the Markdown heading marks."""
    start = text.find(f"\n{COMMANDS_HEADING}\n")
    if start < 0:
        return {}
    sections: dict[str, str] = {}
    name, lines = "", []
    for line in text[start + len(COMMANDS_HEADING) + 2:].splitlines():
        heading = _SECTION.match(line)
        if heading or line.startswith(("## ", "### ")):
            if name and name not in sections:
                sections[name] = "\n".join(lines).rstrip() + "\n"
            name, lines = "", []
            if heading is None and line.startswith("## "):
                break
        if heading:
            usage = heading.group("usage")
            name, lines = usage.split()[0], [usage]
        elif name:
            lines.append(line)
    if name and name not in sections:
        sections[name] = "\n".join(lines).rstrip() + "\n"
    return sections


def command_section(name: str) -> str | None:
    """The reference's section on command ``name`` (its usage line, then the text), or None."""
    return _sections(reference() or "").get(name)


def topic(name: str) -> str | None:
    """The topic page ``name`` (one of ``TOPICS``), or None."""
    return _packaged(f"{name}.md") if name in TOPICS else None


def page(name: str) -> str | None:
    """What `man NAME` prints from the manual: the topic page, followed by the command's
    section when NAME is a command too (`man scoop`); else the command's section; else None."""
    parts = [text for text in (topic(name), command_section(name)) if text]
    return "\n".join(parts) if parts else None
