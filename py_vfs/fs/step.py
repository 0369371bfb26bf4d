"""Steps: several operations that commit together (one store commit) or not at all.

``async with vfs.step() as tx:`` holds the VFS's mutation lock for the whole step, so other
callers in this process wait until it ends. Each operation on ``tx`` runs in a transaction of its
own that is folded into the step's on success (a failing operation undoes only itself, and the
step may go on). At the end the whole step is one conditional commit; if another tab committed in
the meantime, the step's operations are run again, in order, on the fresh state (their effects,
not the reads the step made, are what is replayed: see docs/semantics.md). If the body raises,
the step is rolled back in memory and nothing reaches the disk.

The step drives the commit engine (``engine.py``) through its public interface only; ``StepTx``
is the explicit type of ``tx``, over the operations of a ``StepHost`` (the VFS facade).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from ..core.errors import FsError
from ..core.node import DirEntry, Node, Stat
from ..disk.check import Progress, Report
from ..disk.engine import STEP_RUNNING, CommitEngine, current_task
from ..disk.garbage import DEFAULT_GRACE_MS
from ..disk.replica import store_full
from ..disk.scope import SCOPE, Scope, check_change
from ..disk.streams import ReadStream, WriteStream
from ..disk.usage import Usage
from ..mounts.backend import Backend
from ..mounts.table import MountTable
from ..storage.transaction import Change, Transaction, run_change
from .search import DEFAULT_MAX_FILE_SIZE, GrepResult

T = TypeVar("T")
MAX_REPLAYS = 20


class StepHost(Protocol):
    """The operations a step's ``tx`` offers, as the VFS facade implements them."""

    engine: CommitEngine
    mount_table: MountTable

    async def read_file(self, path: str, encoding: str | None = None) -> bytes | str:
        """``VFS.read_file``."""

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None,
                         digests: Sequence[str] | None = None) -> None:
        """``VFS.write_file``."""

    async def append_file(self, path: str, data: bytes | str) -> None:
        """``VFS.append_file``."""

    async def truncate(self, path: str, length: int = 0) -> None:
        """``VFS.truncate``."""

    async def write_stream(self, path: str,
                           chunks: Iterable[bytes | str] | AsyncIterable[bytes | str], *,
                           mode: int | None = None) -> None:
        """``VFS.write_stream``."""

    async def mkdir(self, path: str, *, recursive: bool = False,
                    mode: int | None = None) -> None:
        """``VFS.mkdir``."""

    async def rm(self, path: str, *, recursive: bool = False, force: bool = False) -> None:
        """``VFS.rm``."""

    async def rmdir(self, path: str) -> None:
        """``VFS.rmdir``."""

    async def unlink(self, path: str) -> None:
        """``VFS.unlink``."""

    async def rename(self, old: str, new: str) -> None:
        """``VFS.rename``."""

    async def copy_file(self, src: str, dst: str) -> None:
        """``VFS.copy_file``."""

    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> None:
        """``VFS.cp``."""

    async def symlink(self, target: str, path: str) -> None:
        """``VFS.symlink``."""

    async def chmod(self, path: str, mode: int) -> None:
        """``VFS.chmod``."""

    async def utimes(self, path: str, atime_ms: float, mtime_ms: float) -> None:
        """``VFS.utimes``."""

    async def touch(self, path: str) -> None:
        """``VFS.touch``."""

    async def grep(self, pattern: str, path: str = "/", *, regex: bool = True,
                   ignore_case: bool = False, include: str | None = None,
                   max_results: int | None = None,
                   max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> GrepResult:
        """``VFS.grep``."""

    async def check(self, progress: Progress | None = None) -> Report:
        """``VFS.check``."""

    async def usage(self) -> Usage:
        """``VFS.usage``."""

    async def gc(self, grace_ms: float = DEFAULT_GRACE_MS) -> int:
        """``VFS.gc``."""

    async def unmount(self, path: str) -> dict[str, Any]:
        """``VFS.unmount``."""

    async def reconnect(self, path: str, backend: Backend | None = None, *,
                        read_only: bool | None = None) -> dict[str, Any]:
        """``VFS.reconnect``."""

    def readlink(self, path: str) -> str:
        """``VFS.readlink``."""

    def realpath(self, path: str) -> str:
        """``VFS.realpath``."""

    def stat(self, path: str) -> Stat:
        """``VFS.stat``."""

    def lstat(self, path: str) -> Stat:
        """``VFS.lstat``."""

    def exists(self, path: str) -> bool:
        """``VFS.exists``."""

    def readdir(self, path: str, with_types: bool = False) -> list[str] | list[DirEntry]:
        """``VFS.readdir``."""

    def scandir(self, path: str) -> tuple[str, list[Node]]:
        """``VFS.scandir``."""

    def walk(self, path: str = "/") -> list[str]:
        """``VFS.walk``."""

    def du(self, path: str = "/") -> int:
        """``VFS.du``."""

    def ls(self, prefix: str = "/") -> list[str]:
        """``VFS.ls``."""

    def find(self, directory: str = "/", pattern: str | None = None) -> list[dict]:
        """``VFS.find``."""

    def glob(self, pattern: str) -> list[str]:
        """``VFS.glob``."""

    def open_read(self, path: str, start: int = 0, end: int | None = None) -> ReadStream:
        """``VFS.open_read``."""

    def stream_writer(self, path: str, *, mode: int | None = None) -> WriteStream:
        """``VFS.stream_writer``."""

    def content_id(self, path: str) -> str:
        """``VFS.content_id``."""

    def mounts(self) -> list[dict[str, Any]]:
        """``VFS.mounts``."""

    def mount_info(self, path: str) -> dict[str, Any]:
        """``VFS.mount_info``."""


class Step:
    """One step of one VFS; use it as ``async with``, or ``begin``/``end`` (the JS bridge)."""

    def __init__(self, vfs: StepHost) -> None:
        self.vfs = vfs
        self.engine = vfs.engine
        # The step's writer is the one of the context that made it (``vfs.as_writer``...).
        self.writer = self.engine.writer()
        self.tx = self._fresh()
        self.changes: list[tuple[Change, str, Scope | None]] = []
        self.owner: asyncio.Task | None = None
        self.open = False

    async def begin(self, *, owned: bool = True) -> StepTx:
        """Take the mutation lock and start from the disk's latest state. ``owned``: the
        current task runs the body, so its calls on the outer VFS can be caught (EDEADLK)."""
        await self.engine.open_step(self)
        self.owner = current_task() if owned else None
        self.open = True
        return StepTx(self.vfs, self)

    def _fresh(self) -> Transaction:
        """The step's transaction: one journal entry, ``step``, listing its operations."""
        tx = Transaction(self.writer)
        tx.operations.append("step")
        return tx

    def _inner(self, operation: str) -> Transaction:
        tx = Transaction(self.writer)
        tx.operations.append(operation)
        return tx

    async def run(self, change: Change, operation: str) -> Any:
        """One operation of the step: its own transaction, folded in when it succeeds."""
        if not self.open:
            raise FsError.of("EINVAL", "step", None)
        inner = self._inner(operation)
        try:
            result = await run_change(change, inner)
            check_change(inner.changes, self.engine.index.nodes.get, operation)
        except BaseException:
            inner.rollback()
            raise
        self.tx.merge(inner)
        self.engine.stage(inner)
        self.changes.append((change, operation, SCOPE.get()))
        return result

    async def end(self, commit: bool) -> None:
        """Commit the step (one store commit) or roll it back; always release the lock."""
        if not self.open:
            return
        try:
            if commit:
                await self._commit()
            else:
                self.tx.rollback()
        finally:
            self.open = False
            await self.engine.close_step()

    async def _commit(self) -> None:
        for _ in range(MAX_REPLAYS):
            try:
                if await self.engine.commit(self.tx):
                    return
            except FsError as error:  # the store is full: history goes first
                if not store_full(error) or self.engine.make_room is None \
                        or not await self.engine.make_room():
                    raise
            await self._replay()
        raise FsError.of("EAGAIN", "step", None)

    async def _replay(self) -> None:
        """Another tab committed first: run the step's operations again on the fresh state."""
        self.tx = self._fresh()
        for change, operation, scope in self.changes:
            inner = self._inner(operation)
            token = SCOPE.set(scope)  # the view the operation was made through
            try:
                await run_change(change, inner)
                check_change(inner.changes, self.engine.index.nodes.get, operation)
            except BaseException:
                inner.rollback()
                self.tx.rollback()
                raise
            finally:
                SCOPE.reset(token)
            self.tx.merge(inner)
            self.engine.stage(inner)

    async def __aenter__(self) -> StepTx:
        return await self.begin()

    async def __aexit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        await self.end(commit=kind is None)


class StepTx:
    """What a step body gets: the VFS's operations, run inside the step. An async operation
    runs with the step marked as running, so the commit engine folds its change into the step;
    synchronous reads (stat, readdir) see the step's own changes because the index holds them.
    Lifecycle operations (step, watch, sync, close, mount) are not offered: inside a step they
    would wait for the step itself."""

    def __init__(self, vfs: StepHost, step: Step) -> None:
        self._vfs = vfs
        self._step = step

    @property
    def mount_table(self) -> MountTable:
        """The VFS's mount table (the listing of ``readdirStats`` asks what it covers)."""
        return self._vfs.mount_table

    async def _run(self, call: Callable[[], Awaitable[T]]) -> T:
        """Run ``call`` with the step marked as running: the commit engine folds its change
        into the step instead of committing it."""
        token = STEP_RUNNING.set(self._step)
        try:
            return await call()
        finally:
            STEP_RUNNING.reset(token)

    # ----------------------------------------------------------- content

    async def read_file(self, path: str, encoding: str | None = None) -> bytes | str:
        """``VFS.read_file``, seeing the step's own writes."""
        return await self._run(lambda: self._vfs.read_file(path, encoding))

    async def write_file(self, path: str, data: bytes | str, *, mode: int | None = None,
                         digests: Sequence[str] | None = None) -> None:
        """``VFS.write_file``, as part of the step."""
        await self._run(lambda: self._vfs.write_file(path, data, mode=mode, digests=digests))

    async def append_file(self, path: str, data: bytes | str) -> None:
        """``VFS.append_file``, as part of the step."""
        await self._run(lambda: self._vfs.append_file(path, data))

    async def truncate(self, path: str, length: int = 0) -> None:
        """``VFS.truncate``, as part of the step."""
        await self._run(lambda: self._vfs.truncate(path, length))

    async def write_stream(self, path: str,
                           chunks: Iterable[bytes | str] | AsyncIterable[bytes | str], *,
                           mode: int | None = None) -> None:
        """``VFS.write_stream``, as part of the step."""
        await self._run(lambda: self._vfs.write_stream(path, chunks, mode=mode))

    def open_read(self, path: str, start: int = 0, end: int | None = None) -> ReadStream:
        """``VFS.open_read``: the version current now, the step's writes included."""
        return self._vfs.open_read(path, start, end)

    def stream_writer(self, path: str, *, mode: int | None = None) -> WriteStream:
        """``VFS.stream_writer`` (its commit at ``close`` is not part of the step)."""
        return self._vfs.stream_writer(path, mode=mode)

    def content_id(self, path: str) -> str:
        """``VFS.content_id``."""
        return self._vfs.content_id(path)

    # ----------------------------------------------------------- namespace

    async def mkdir(self, path: str, *, recursive: bool = False,
                    mode: int | None = None) -> None:
        """``VFS.mkdir``, as part of the step."""
        await self._run(lambda: self._vfs.mkdir(path, recursive=recursive, mode=mode))

    async def rm(self, path: str, *, recursive: bool = False, force: bool = False) -> None:
        """``VFS.rm``, as part of the step."""
        await self._run(lambda: self._vfs.rm(path, recursive=recursive, force=force))

    async def rmdir(self, path: str) -> None:
        """``VFS.rmdir``, as part of the step."""
        await self._run(lambda: self._vfs.rmdir(path))

    async def unlink(self, path: str) -> None:
        """``VFS.unlink``, as part of the step."""
        await self._run(lambda: self._vfs.unlink(path))

    async def rename(self, old: str, new: str) -> None:
        """``VFS.rename``, as part of the step."""
        await self._run(lambda: self._vfs.rename(old, new))

    async def copy_file(self, src: str, dst: str) -> None:
        """``VFS.copy_file``, as part of the step."""
        await self._run(lambda: self._vfs.copy_file(src, dst))

    async def cp(self, src: str, dst: str, *, recursive: bool = False) -> None:
        """``VFS.cp``, as part of the step."""
        await self._run(lambda: self._vfs.cp(src, dst, recursive=recursive))

    async def symlink(self, target: str, path: str) -> None:
        """``VFS.symlink``, as part of the step."""
        await self._run(lambda: self._vfs.symlink(target, path))

    def readlink(self, path: str) -> str:
        """``VFS.readlink``."""
        return self._vfs.readlink(path)

    def realpath(self, path: str) -> str:
        """``VFS.realpath``."""
        return self._vfs.realpath(path)

    # ----------------------------------------------------------- metadata

    def stat(self, path: str) -> Stat:
        """``VFS.stat``."""
        return self._vfs.stat(path)

    def lstat(self, path: str) -> Stat:
        """``VFS.lstat``."""
        return self._vfs.lstat(path)

    def exists(self, path: str) -> bool:
        """``VFS.exists``."""
        return self._vfs.exists(path)

    async def chmod(self, path: str, mode: int) -> None:
        """``VFS.chmod``, as part of the step."""
        await self._run(lambda: self._vfs.chmod(path, mode))

    async def utimes(self, path: str, atime_ms: float, mtime_ms: float) -> None:
        """``VFS.utimes``, as part of the step."""
        await self._run(lambda: self._vfs.utimes(path, atime_ms, mtime_ms))

    async def touch(self, path: str) -> None:
        """``VFS.touch``, as part of the step."""
        await self._run(lambda: self._vfs.touch(path))

    # ----------------------------------------------------------- listing and search

    def readdir(self, path: str, with_types: bool = False) -> list[str] | list[DirEntry]:
        """``VFS.readdir``."""
        return self._vfs.readdir(path, with_types)

    def scandir(self, path: str) -> tuple[str, list[Node]]:
        """``VFS.scandir``."""
        return self._vfs.scandir(path)

    def walk(self, path: str = "/") -> list[str]:
        """``VFS.walk``."""
        return self._vfs.walk(path)

    def du(self, path: str = "/") -> int:
        """``VFS.du``."""
        return self._vfs.du(path)

    def ls(self, prefix: str = "/") -> list[str]:
        """``VFS.ls``."""
        return self._vfs.ls(prefix)

    def find(self, directory: str = "/", pattern: str | None = None) -> list[dict]:
        """``VFS.find``."""
        return self._vfs.find(directory, pattern)

    def glob(self, pattern: str) -> list[str]:
        """``VFS.glob``."""
        return self._vfs.glob(pattern)

    async def grep(self, pattern: str, path: str = "/", *, regex: bool = True,
                   ignore_case: bool = False, include: str | None = None,
                   max_results: int | None = None,
                   max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> GrepResult:
        """``VFS.grep``, seeing the step's own writes."""
        return await self._run(lambda: self._vfs.grep(
            pattern, path, regex=regex, ignore_case=ignore_case, include=include,
            max_results=max_results, max_file_size=max_file_size))

    # ----------------------------------------------------------- disk and mounts

    async def check(self, progress: Progress | None = None) -> Report:
        """``VFS.check``, inside the step."""
        return await self._run(lambda: self._vfs.check(progress))

    async def usage(self) -> Usage:
        """``VFS.usage``."""
        return await self._run(lambda: self._vfs.usage())

    async def gc(self, grace_ms: float = DEFAULT_GRACE_MS) -> int:
        """``VFS.gc``, as part of the step."""
        return await self._run(lambda: self._vfs.gc(grace_ms))

    async def unmount(self, path: str) -> dict[str, Any]:
        """``VFS.unmount`` (the JS API does not offer it in a step)."""
        return await self._run(lambda: self._vfs.unmount(path))

    async def reconnect(self, path: str, backend: Backend | None = None, *,
                        read_only: bool | None = None) -> dict[str, Any]:
        """``VFS.reconnect`` (the JS API does not offer it in a step)."""
        return await self._run(lambda: self._vfs.reconnect(path, backend, read_only=read_only))

    def mounts(self) -> list[dict[str, Any]]:
        """``VFS.mounts``."""
        return self._vfs.mounts()

    def mount_info(self, path: str) -> dict[str, Any]:
        """``VFS.mount_info``."""
        return self._vfs.mount_info(path)
