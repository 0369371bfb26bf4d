"""The worker's warm-up: everyday calls on a throwaway disk in memory, once, after the boot.

In Chromium, V8 compiles Python's interpreter loop (the wasm's largest function) with its
optimizing compiler once it is hot, speculating on the C functions it calls indirectly; when
Python then reaches others, V8 deoptimizes it, runs its baseline code (compiling that again if a
garbage collection freed it: 6-7 ms) and optimizes again later, up to a limit per function.
Right after a restore, every kind of call the user makes first pays that: a folder rename after
a garbage collection took 14-24 ms against 3-6 back to back, and 1,000 sequential writes ran
11-13% slower in the first seconds (docs/benchmarks.md, "Warming up the interpreter").

``start()`` runs ``warm_up`` in the background: each round makes a folder, writes, reads, stats,
lists, renames and removes files, and fails to read a missing one, through ``WebAPI.call`` (the
path the page's calls take) on a VFS over a ``MemoryStore`` of its own. Nothing reaches the
user's disk, its pages or its watchers, and the disk in memory is dropped at the end. It yields
to the event loop after every call, so the user's calls, the worker's messages and its timers
(the disk's lock lease) go between them. The worker calls it once, when it
has had no call for 100 ms after the boot (``warmUpWhenIdle``, web/worker/python_boot.mjs).
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..storage.memory import MemoryStore
from ..vfs import VFS
from .webapi import WebAPI

ROUNDS = 20
FILES = 20
DATA = b"x" * 1024

# The running warm-up, kept so that its task is not collected before it ends.
_running: set[asyncio.Task] = set()


async def _call(api: WebAPI, op: str, args: list[Any]) -> dict:
    """One call through the page's path; its envelope (an error one too: some are meant)."""
    loop = asyncio.get_running_loop()
    answer = loop.create_future()
    returned = api.call(op, args, out=answer.set_result)
    return returned if isinstance(returned, dict) else await answer


async def warm_up(rounds: int = ROUNDS) -> int:
    """Run ``rounds`` rounds of everyday calls on a disk in memory; returns the calls made."""
    api = WebAPI(await VFS.open(MemoryStore()))
    calls = 0
    for round_ in range(rounds):
        root = f"/warm{round_}"
        steps: list[tuple[str, list[Any]]] = [("mkdir", [root]), ("mkdir", [f"{root}/d"])]
        steps += [("writeFile", [f"{root}/d/f{i}", DATA]) for i in range(FILES)]
        for i in range(FILES):
            steps += [("readFile", [f"{root}/d/f{i}"]), ("stat", [f"{root}/d/f{i}"]),
                      ("lstat", [f"{root}/d/missing{i}"])]
        steps += [("readdir", [f"{root}/d"]), ("readdirStats", [f"{root}/d"]),
                  ("rename", [f"{root}/d", f"{root}/e"]),
                  ("rename", [f"{root}/e/f0", f"{root}/e/g0"]),
                  ("readFile", [f"{root}/missing/x"]), ("exists", [root]), ("realpath", [root]),
                  ("rm", [root, {"recursive": True}])]
        for op, args in steps:
            await _call(api, op, args)
            # Many calls answer without awaiting anything: without this the round would run
            # as one stretch, and the worker's messages and timers would wait for it.
            await asyncio.sleep(0)
        calls += len(steps)
    return calls


def start(rounds: int = ROUNDS) -> None:
    """Start ``warm_up`` in the background on the running loop (nothing is handed back to
    JavaScript: the task is kept here until it ends)."""
    task = asyncio.ensure_future(warm_up(rounds))
    _running.add(task)
    task.add_done_callback(_done)


def _done(task: asyncio.Task) -> None:
    _running.discard(task)
    if not task.cancelled() and task.exception() is not None:
        # A warm-up that failed costs nothing but its speed-up; say so in the console.
        print(f"py_vfs: the interpreter's warm-up failed: {task.exception()!r}")
