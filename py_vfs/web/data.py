"""The JS API's export and import (``vfs.export``, ``vfs.import``): the operations WebAPI
answers for them, as stream sessions (py_vfs/web/streams.py).

An export is the iterator of ``archive.export``, in pieces of about one chunk, pulled one
per ``exportChunk``; ``closeStream`` (WebAPI's) closes it, which frees what it holds (an image's
temporary file). An import is an ``archive.Upload`` fed by ``importChunk`` and run by
``importFinish``. Formats and limits: docs/data.md.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any

from ..archives.archive import Upload, export, in_pieces
from ..vfs import VFS
from .streams import Sessions


class DataOps:
    """exportOpen, exportChunk, importOpen, importChunk, importFinish, as stream sessions
    (web/streams.py) shared with WebAPI's other streams."""

    def __init__(self, vfs: VFS, streams: Sessions) -> None:
        self.vfs = vfs
        self._streams = streams

    def table(self) -> dict[str, Callable[..., Any]]:
        """The operations, by their protocol names."""
        return {"exportOpen": self.export_open, "exportChunk": self.export_chunk,
                "importOpen": self.import_open, "importChunk": self.import_chunk,
                "importFinish": self.import_finish}

    def export_open(self, path: str, options: Any = None) -> int:
        """An export of ``path`` (errors in it are this call's), pulled by ``exportChunk``."""
        format = options.get("format") if isinstance(options, dict) else None
        return self._streams.keep(in_pieces(export(self.vfs, path, format or "zip")))

    async def export_chunk(self, stream_id: int) -> bytes | None:
        """The next piece of an export (about one chunk), or None at its end (then forgotten)."""
        return await self._streams.pull(stream_id, AsyncGenerator, "export")

    def import_open(self, options: Any = None) -> int:
        """An import, fed by ``importChunk`` and made by ``importFinish``."""
        given = options if isinstance(options, dict) else {}
        return self._streams.keep(Upload(self.vfs, given.get("format") or "zip",
                                         given.get("into") or "/"))

    async def import_chunk(self, stream_id: int, data: bytes) -> None:
        """One more piece of the archive (EFBIG past the cap: the import is dropped)."""
        await self._streams.push(stream_id, Upload, "import", data)

    async def import_finish(self, stream_id: int) -> dict[str, int]:
        """Run the import: all of it in one step, or nothing."""
        return await self._streams.take(stream_id, Upload, "import").finish()
