"""The JS API's export and import (``vfs.export``, ``vfs.import``): the operations WebAPI
answers for them, over its table of streams kept between calls (py_vfs/web/api.py).

An export is the iterator of ``archive.export``, in pieces of about one chunk, pulled one
per ``exportChunk``; ``closeStream`` (WebAPI's) closes it, which frees what it holds (an image's
temporary file). An import is an ``archive.Upload`` fed by ``importChunk`` and run by
``importFinish``. Formats and limits: docs/data.md.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any

from ..archives.archive import Upload, export, in_pieces
from ..core.errors import FsError
from ..vfs import VFS


class DataOps:
    """exportOpen, exportChunk, importOpen, importChunk, importFinish over ``streams`` (id ->
    stream, shared with WebAPI's other streams) and ``keep`` (stores one, returns its id)."""

    def __init__(self, vfs: VFS, streams: dict[int, Any], keep: Callable[[Any], int]) -> None:
        self.vfs = vfs
        self._streams = streams
        self._keep = keep

    def table(self) -> dict[str, Callable[..., Any]]:
        """The operations, by their protocol names."""
        return {"exportOpen": self.export_open, "exportChunk": self.export_chunk,
                "importOpen": self.import_open, "importChunk": self.import_chunk,
                "importFinish": self.import_finish}

    def export_open(self, path: str, options: Any = None) -> int:
        """An export of ``path`` (errors in it are this call's), pulled by ``exportChunk``."""
        format = options.get("format") if isinstance(options, dict) else None
        return self._keep(in_pieces(export(self.vfs, path, format or "zip")))

    async def export_chunk(self, stream_id: int) -> bytes | None:
        """The next piece of an export (about one chunk), or None at its end (then forgotten)."""
        stream = self._streams.get(stream_id)
        if not isinstance(stream, AsyncGenerator):
            raise FsError.of("EBADF", "export", None)
        try:
            return await anext(stream)
        except StopAsyncIteration:
            del self._streams[stream_id]
            return None
        except BaseException:
            self._streams.pop(stream_id, None)
            await stream.aclose()
            raise

    def import_open(self, options: Any = None) -> int:
        """An import, fed by ``importChunk`` and made by ``importFinish``."""
        given = options if isinstance(options, dict) else {}
        return self._keep(Upload(self.vfs, given.get("format") or "zip",
                                 given.get("into") or "/"))

    def _upload(self, stream_id: int) -> Upload:
        upload = self._streams.get(stream_id)
        if not isinstance(upload, Upload):
            raise FsError.of("EBADF", "import", None)
        return upload

    def import_chunk(self, stream_id: int, data: bytes) -> None:
        """One more piece of the archive (EFBIG past the cap: the import is dropped)."""
        upload = self._upload(stream_id)
        try:
            upload.write(data)
        except BaseException:
            self._streams.pop(stream_id, None)
            raise

    async def import_finish(self, stream_id: int) -> dict[str, int]:
        """Run the import: all of it in one step, or nothing."""
        upload = self._upload(stream_id)
        del self._streams[stream_id]
        return await upload.finish()
