"""How many of the package's modules one busy call walks through (issue 28: "work done once").

For a JS ``writeFile`` (as the worker hands it to Python: ``WebAPI.call("writeFile", ...)``) and
a terminal line (``WebAPI.call("shell", [line, {"interactive": True}])``), every Python function
that runs is recorded by ``sys.setprofile``; a module of ``py_vfs`` counts once however often it
is entered. The disk is a memory disk (the page's is IndexedDB: one storage module either way),
and each call is measured after one warm-up call of the same kind, so first-use imports and
loading ``~/.history`` do not count. Also counted: the durable commits each call makes, and the
times the resolver walks a path (``fs/resolver.py``'s ``_walk_once``, where every walk happens).

    .venv/bin/python bench/rooms.py           # a table
    .venv/bin/python bench/rooms.py --list    # and the modules, in the order first entered
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from py_vfs import VFS  # noqa: E402
from py_vfs.web.webapi import WebAPI  # noqa: E402

PACKAGE = str(ROOT / "py_vfs")
RESOLVER = str(ROOT / "py_vfs" / "fs" / "resolver.py")


async def answer(api: WebAPI, op: str, args: list[Any]) -> dict[str, Any]:
    """The envelope of one call, awaited when it is not answered at once."""
    result = api.call(op, args)
    return result if isinstance(result, dict) else await result


async def walked(api: WebAPI, op: str, args: list[Any]) -> tuple[list[str], int, int, dict]:
    """(modules entered in order, commits made, path walks, envelope) for one call."""
    seen: dict[str, None] = {}
    walks = 0

    def profile(frame: Any, event: str, _arg: Any) -> None:
        nonlocal walks
        if event == "call":
            name = frame.f_code.co_filename
            if name.startswith(PACKAGE) and name not in seen:
                seen[name] = None
            if name == RESOLVER and frame.f_code.co_name == "_walk_once":
                walks += 1

    before = api.vfs.revision
    sys.setprofile(profile)
    try:
        envelope = await answer(api, op, args)
    finally:
        sys.setprofile(None)
    modules = [str(Path(name).relative_to(ROOT)) for name in seen]
    return modules, api.vfs.revision - before, walks, envelope


async def main() -> None:
    """Measure both calls and print them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print the modules too")
    listing = parser.parse_args().list
    api = WebAPI(VFS.memory())
    calls = {
        "JS writeFile": ("writeFile", ["/warm.txt", "hello\n", None],
                         ["/notes/today.txt", "hello\n", None]),
        "terminal line": ("shell", ["echo warm > /warm2.txt", {"interactive": True}],
                          ["echo hi > /hi.txt", {"interactive": True}]),
    }
    await answer(api, "mkdir", ["/notes", None])
    for label, (op, warm, args) in calls.items():
        await answer(api, op, warm)
        modules, commits, walks, envelope = await walked(api, op, args)
        if "error" in envelope:
            raise SystemExit(f"{label}: {envelope['error']}")
        print(f"{label}: {len(modules)} modules, {commits} commit(s), {walks} path walk(s)")
        if listing:
            for module in modules:
                print(f"    {module}")


if __name__ == "__main__":
    asyncio.run(main())
