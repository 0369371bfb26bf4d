"""Node ids (py_vfs/fs/disk_side.py ``new_id``): 16 random hex digits, drawn from a pool that one
``os.urandom`` fills, never twice the same, and a forked process draws ids of its own."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from py_vfs.fs.disk_side import ID_POOL, new_id


def test_ids_are_16_hex_digits_and_never_repeat():
    ids = [new_id() for _ in range(5 * ID_POOL + 3)]  # across several pools
    assert len(set(ids)) == len(ids)
    assert all(len(i) == 16 and int(i, 16) >= 0 and i == i.lower() for i in ids)


@pytest.mark.skipif(sys.platform == "emscripten", reason="Pyodide has no threads")
def test_threads_never_get_the_same_id():
    got: list[list[str]] = [[] for _ in range(4)]

    def draw(into: list[str]) -> None:
        into.extend(new_id() for _ in range(3 * ID_POOL))

    threads = [threading.Thread(target=draw, args=(into,)) for into in got]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive(), "a thread drawing ids did not finish in 60 s"
    every = [i for ids in got for i in ids]
    assert len(set(every)) == len(every)


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "emscripten",
                    reason="Emscripten (Pyodide) has no processes")
def test_a_forked_process_does_not_make_its_parent_s_ids():
    new_id()  # the pool is filled, and the child inherits it
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next ids, then out
        os.write(write, "".join(new_id() for _ in range(4)).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    child = os.read(read, 64).decode()
    os.close(read)
    mine = "".join(new_id() for _ in range(4))
    assert len(child) == 64 and child != mine
