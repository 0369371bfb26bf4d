"""What every store must do (the ``Store`` interface of py_vfs/storage/__init__.py), written once
and run against each: ``MemoryStore`` and ``SQLiteStore`` by test_store_contract.py (CPython, and
the memory store in Pyodide too), ``IndexedDBStore`` over fake-indexeddb by
tests/pyodide/store_contract.test.mjs, as CPython's pathlib tests run one suite against local
and zip paths.

A case is an ``async`` function of a new, empty store; ``CASES`` names them all. A case uses no
pytest, so the Pyodide tier runs it as it is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from py_vfs import VFS

Case = Callable[[Any], Awaitable[None]]
CASES: dict[str, Case] = {}


def case(function: Case) -> Case:
    """Add ``function`` to ``CASES`` under its name."""
    CASES[function.__name__] = function
    return function


@case
async def puts_and_deletes_of_one_commit_read_back(store: Any) -> None:
    await store.commit([("put", "nodes", "a", "1"), ("put", "nodes", "b", "2"),
                        ("put", "chunks", "c1", b"\x00\xffbytes")])
    assert sorted(await store.get_all("nodes")) == [("a", "1"), ("b", "2")]
    assert await store.get("nodes", "a") == "1"
    assert await store.get("nodes", "missing") is None
    assert bytes(await store.get("chunks", "c1")) == b"\x00\xffbytes"
    await store.commit([("delete", "nodes", "a", None), ("put", "nodes", "b", "3"),
                        ("delete", "nodes", "never-there", None)])
    assert await store.get_all("nodes") == [("b", "3")]
    assert await store.keys("chunks") == ["c1"]


@case
async def a_prefix_read_answers_exactly_the_keys_that_start_with_it(store: Any) -> None:
    """The journal's and the collector's markers are read by prefix: every key that starts with
    it (however it goes on), and none of its neighbours in key order."""
    inside = ["held:", "held:0a", "held:ff", "held:\u00e9", "held:\U0001f600", "held::"]
    outside = ["held", "held;", "hele:", "heldx", "ahead:0a", "snapshot:held:1", "Held:1"]
    await store.commit([("put", "meta", key, str(n)) for n, key in enumerate(inside + outside)])
    found = dict(await store.get_prefix("meta", "held:"))
    assert sorted(found) == sorted(inside)
    assert found["held:ff"] == str(inside.index("held:ff"))


@case
async def a_logged_commit_moves_the_revision_and_a_stale_one_writes_nothing(store: Any) -> None:
    assert await store.load() == (0, [])
    assert await store.commit_logged(0, [("put", "nodes", "n1", "x")], "e1") == 1
    assert await store.commit_logged(0, [("put", "nodes", "n2", "y")], "late") is None
    assert await store.get("nodes", "n2") is None
    assert await store.log_entries(1, 5) == [(1, "e1")]
    assert await store.commit_logged(1, [("put", "nodes", "n2", "y")], "e2") == 2
    revision, rows = await store.load()
    assert (revision, sorted(rows)) == (2, [("n1", "x"), ("n2", "y")])


@case
async def the_log_answers_what_came_after_a_revision_until_trimmed(store: Any) -> None:
    for revision in range(4):
        await store.commit_logged(revision, [], f"e{revision + 1}")
    assert await store.log_since(2) == (4, [(3, "e3"), (4, "e4")])
    assert await store.log_since(4) == (4, [])
    assert await store.log_entries(2, 3) == [(2, "e2"), (3, "e3")]
    assert await store.log_oldest() == 1
    await store.commit([("delete_to", "log", 2, None)])
    assert await store.log_oldest() == 3
    assert await store.log_since(0) == (4, None)  # trimmed: the reader reloads instead


@case
async def a_disk_on_the_store_opens_again_with_what_it_holds(store: Any) -> None:
    """The VFS over the store, and a second one on the same store (another tab, or the next
    session): it finds what the first wrote, content chunks included."""
    first = await VFS.open(store)
    await first.write_file("/d/big.bin", b"x" * (700 * 1024) + b"end")
    await first.write_file("/d/small.txt", "small")
    await first.rename("/d", "/e")
    second = await VFS.open(store)
    assert second.readdir("/e") == ["big.bin", "small.txt"]
    assert (await second.read_file("/e/big.bin"))[-3:] == b"end"
    assert await second.read_file("/e/small.txt") == b"small"
    await second.rm("/e/small.txt")
    await first.sync()
    assert first.readdir("/e") == ["big.bin"]
