"""Scratch folders: where Python's sqlite3 builds or reads a SQLite image (sqlite_image.py).

sqlite3 needs a real file. By default a scratch folder is a fresh temporary directory
(``tempfile``): a folder on disk on CPython, a folder in MEMFS (the worker's memory) under
Pyodide. The browser worker replaces the provider with folders kept in the origin private
file system (web/worker/opfs_scratch.mjs, through ``use``), so that an image never sits whole in the
worker's memory. A folder and what is in it are gone when its context ends.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

Provider = Callable[[], AbstractAsyncContextManager[str]]
"""Makes a scratch folder: an async context manager whose value is the folder's path."""


@asynccontextmanager
async def temporary_folder() -> AsyncIterator[str]:
    """A fresh temporary directory, removed with what it holds at the end."""
    folder = tempfile.mkdtemp(prefix="pyvfs-scratch-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


_provider: Provider = temporary_folder


def use(provider: Provider | None) -> None:
    """Make scratch folders with ``provider`` from now on in this process (None: temporary
    directories again). The browser worker calls it once, at boot."""
    global _provider
    _provider = provider or temporary_folder


def folder() -> AbstractAsyncContextManager[str]:
    """A new scratch folder, as an async context manager giving its path."""
    return _provider()


def opened_by(open_folder: Callable[[], Any]) -> Provider:
    """Scratch folders made by ``open_folder()``: an awaitable of an object with the folder's
    ``path`` and an awaitable ``close()`` that removes it (web/worker/opfs_scratch.mjs's)."""
    @asynccontextmanager
    async def folder() -> AsyncIterator[str]:
        made = await open_folder()
        try:
            yield str(made.path)
        finally:
            await made.close()
    return folder
