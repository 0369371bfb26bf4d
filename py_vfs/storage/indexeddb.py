"""The Python half of the IndexedDB store: forwards each call to ``IDBStore`` in web/idb_store.mjs.

JS owns the IndexedDB transactions because Python cannot await inside one (Pyodide resumes
coroutines in a new task, and IndexedDB commits at the end of a task). Each ``commit`` is one
crossing and one ``readwrite`` transaction. Runs only under Pyodide.
"""

from __future__ import annotations

from pyodide.ffi import JsProxy, to_js

from ..errors import FsError
from ..transaction import Op


class IndexedDBStore:
    def __init__(self, js_store: JsProxy) -> None:
        self._js = js_store

    async def get_all(self, space: str) -> list[tuple[str, object]]:
        rows = await self._js.getAll(space)
        return [(str(key), _to_py(value)) for key, value in rows]

    async def get(self, space: str, key: str) -> object | None:
        return _to_py(await self._js.get(space, key))

    async def keys(self, space: str) -> list[str]:
        return [str(key) for key in await self._js.keys(space)]

    async def estimate(self) -> dict[str, object] | None:
        """``navigator.storage.estimate()`` and ``persisted()``, asked by the JS store."""
        answer = await self._js.estimate()
        if not isinstance(answer, JsProxy):
            return None
        return {k: v for k, v in answer.to_py().items() if isinstance(v, int | float | bool)}

    async def commit(self, ops: list[Op]) -> None:
        failure = await self._js.commit(to_js([list(op) for op in ops]))
        if failure is not None:
            raise FsError.of(str(failure.code), "write", str(failure.message))

    def close(self) -> None:
        self._js.close()


def _to_py(value: object) -> object:
    """Chunks come back as Uint8Array (copied out once, cheaply); records are strings."""
    if isinstance(value, JsProxy):
        return value.to_bytes()
    return value
