"""The worker's warm-up (py_vfs/web/warm_up.py): everyday calls on a disk of its own in memory,
in the background, leaving nothing behind and never reaching another disk."""

from __future__ import annotations

import asyncio

from py_vfs import VFS
from py_vfs.storage.memory import MemoryStore
from py_vfs.web import warm_up


def test_a_warm_up_makes_every_kind_of_call_and_each_answers_as_meant():
    answers: list[tuple[str, dict]] = []
    real_call = warm_up._call

    async def spy(api, op, args):
        answer = await real_call(api, op, args)
        answers.append((op, answer))
        return answer

    warm_up._call = spy
    try:
        made = asyncio.run(warm_up.warm_up(rounds=2))
    finally:
        warm_up._call = real_call
    assert made == len(answers) > 0
    ops = {op for op, _ in answers}
    assert {"mkdir", "writeFile", "readFile", "stat", "lstat", "readdir", "readdirStats",
            "rename", "exists", "realpath", "rm"} <= ops
    # The only errors are the ones asked for: paths that do not exist.
    errors = [(op, answer["error"]["code"]) for op, answer in answers if "error" in answer]
    assert errors and {code for _, code in errors} == {"ENOENT"}
    assert {op for op, _ in errors} == {"lstat", "readFile"}


def test_a_warm_up_started_in_the_background_ends_and_touches_no_other_disk():
    async def main():
        vfs = await VFS.open(MemoryStore())
        await vfs.write_file("/kept.txt", b"the user's file")
        before = sorted(vfs.readdir("/"))
        warm_up.start(rounds=3)
        tasks = list(warm_up._running)
        assert len(tasks) == 1
        # The caller's own work goes on meanwhile: the warm-up yields between its rounds.
        await vfs.write_file("/during.txt", b"written while it ran")
        await asyncio.gather(*tasks)
        assert not warm_up._running
        assert tasks[0].result() > 0
        return before, sorted(vfs.readdir("/"))

    before, after = asyncio.run(main())
    assert before == ["kept.txt"]
    assert after == ["during.txt", "kept.txt"]
