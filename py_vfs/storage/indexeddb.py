"""The Python half of the IndexedDB store: each call goes to ``IDBStore``
(web/worker/idb_store.mjs).

JS owns the IndexedDB transactions because Python cannot await inside one (Pyodide resumes
coroutines in a new task, and IndexedDB commits at the end of a task). Each ``commit`` is one
crossing and one ``readwrite`` transaction. Runs only under Pyodide.
"""

from __future__ import annotations

from collections.abc import Callable

from pyodide.ffi import JsProxy, to_js

from ..core.errors import FsError
from . import LogEntries, Rows, gap, prefix_end
from .transaction import Op


class IndexedDBStore:
    """A ``Store`` over IndexedDB: each call is one transaction of ``web/worker/idb_store.mjs``."""

    def __init__(self, js_store: JsProxy) -> None:
        self._js = js_store

    async def get_all(self, space: str) -> list[tuple[str, object]]:
        """``Store.get_all``."""
        rows = await self._js.getAll(space)
        return [(str(key), _to_py(value)) for key, value in rows]

    async def get_prefix(self, space: str, prefix: str) -> list[tuple[str, object]]:
        """``Store.get_prefix``: a key range of the object store."""
        rows = await self._js.getPrefix(space, prefix, prefix_end(prefix))
        return [(str(key), _to_py(value)) for key, value in rows]

    async def get(self, space: str, key: str) -> object | None:
        """``Store.get``."""
        return _to_py(await self._js.get(space, key))

    async def keys(self, space: str) -> list[str]:
        """``Store.keys``."""
        return [str(key) for key in await self._js.keys(space)]

    async def estimate(self) -> dict[str, object] | None:
        """``navigator.storage.estimate()`` and ``persisted()``, asked by the JS store."""
        answer = await self._js.estimate()
        if not isinstance(answer, JsProxy):
            return None
        return {k: v for k, v in answer.to_py().items() if isinstance(v, int | float | bool)}

    async def commit(self, ops: list[Op]) -> None:
        """``Store.commit``."""
        failure = await self._js.commit(to_js(ops))
        if failure is not None:
            raise FsError.of(str(failure.code), "write", str(failure.message))

    async def lock(self) -> Callable[[], None]:
        """The disk's Web Lock (see ``IDBStore.lock``): writers of all tabs take turns. While
        this tab holds it as an idle lease the turn starts with no wait (``lockNow``)."""
        release = self._js.lockNow()
        if release is None:
            release = await self._js.lock()
        return lambda: release()

    async def load(self) -> tuple[int, Rows]:
        """``Store.load``."""
        snapshot = await self._js.load()
        rows = zip(snapshot.keys.to_py(), snapshot.values.to_py(), strict=True)
        return int(snapshot.rev), [(str(key), value) for key, value in rows]

    async def commit_logged(self, base: int, ops: list[Op], entry: str) -> int | None:
        """``Store.commit_logged``."""
        # The ops' tuples convert as they are (arrays): copying them into lists first made the
        # conversion twice as slow (86 against 38 µs for a small write's three ops, Pyodide).
        outcome = await self._js.commitLogged(base, to_js(ops), entry)
        if getattr(outcome, "rev", None) is not None:
            return int(outcome.rev)
        if getattr(outcome, "stale", None) is not None:
            return None
        raise FsError.of(str(outcome.code), "write", str(outcome.message))

    async def log_since(self, rev: int) -> tuple[int, LogEntries | None]:
        """``Store.log_since``."""
        found = await self._js.logSince(rev)
        current = int(found.rev)
        entries = [(int(k), str(v))
                   for k, v in zip(found.keys.to_py(), found.values.to_py(), strict=True)]
        return current, None if gap(rev, current, entries) else entries

    async def log_entries(self, low: int, high: int) -> LogEntries:
        """``Store.log_entries``."""
        found = await self._js.logEntries(low, high)
        return [(int(k), str(v))
                for k, v in zip(found.keys.to_py(), found.values.to_py(), strict=True)]

    async def log_oldest(self) -> int | None:
        """``Store.log_oldest``."""
        oldest = await self._js.logOldest()
        return None if oldest is None else int(oldest)

    def close(self) -> None:
        """``Store.close``."""
        self._js.close()


def _to_py(value: object) -> object:
    """Chunks come back as Uint8Array (copied out once, cheaply); records are strings. (A
    string or None is told by its type first: JsProxy's isinstance is its metaclass's, in
    Python, and costs more than the rest.)"""
    if type(value) is str or value is None:
        return value
    if isinstance(value, JsProxy):
        return value.to_bytes()
    return value
