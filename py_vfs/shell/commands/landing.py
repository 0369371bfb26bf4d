"""Where unzip and tar -x put an archive's members, and the checks that keep every member
inside the target directory. Every name, size and link target in an archive is untrusted:

- names pass ``zip_entries.check_name`` (no absolute names, `..`, empty segments, backslashes,
  drive letters, NUL), after the leading `/` that GNU tar strips;
- counts and sizes are held to the import limits of ``zip_entries`` (entries, bytes per file,
  bytes in all, and the expansion ratio of a compressed archive), before anything is written,
  and each member's data is read no further than its declared size;
- a symlink may lead only inside the target (``zip_entries.check_link``), and no member is
  written through a symlink or below a file already on the disk.

Members are made one by one, so a refused member is reported and skipped while the others are
made (as unzip and tar go on), unlike the JS API's ``import``, which is all or nothing.

The work is linear in the names: what is known below the target (made, or found on the disk) is
a tree of names, so checking the directories above a member walks its names once, each directory
is looked up on the disk once and made by one call from its parent (a `mkdir -p` of every
member, and a lookup of every directory above it, made unzip cubic in the depth of the tree).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import Any

from ...archives import archive, zip_entries
from ...core import cancel
from ...core.errors import FsError
from ..context import Context, describe
from ..format import quote_arg


class Refusal(Exception):
    """A member not made: the message says which and why."""


async def read_archive(ctx: Context, name: str) -> bytes:
    """The archive's bytes (an archive is read into memory whole, at most
    ``archive.MAX_ARCHIVE_BYTES``)."""
    data = bytearray()
    async for piece in ctx.vfs.open_read(ctx.resolve(name)):
        data += piece
        if len(data) > archive.MAX_ARCHIVE_BYTES:
            raise FsError.of("EFBIG", "read", ctx.resolve(name)).with_hint(
                f"an archive over {archive.MAX_ARCHIVE_BYTES} bytes")
    return bytes(data)


def check_sizes(sizes: list[int], archive_bytes: int) -> None:
    """The limits of an import on the members' declared sizes (raises ``FsError``)."""
    if len(sizes) > zip_entries.MAX_ENTRIES:
        raise zip_entries.refuse("ENOSPC", f"{len(sizes)} entries, over the limit of "
                                           f"{zip_entries.MAX_ENTRIES}")
    if max(sizes, default=0) > zip_entries.MAX_ENTRY_BYTES:
        raise zip_entries.refuse("EFBIG", f"a member of {max(sizes)} bytes, over the limit of "
                                          f"{zip_entries.MAX_ENTRY_BYTES}")
    total = sum(sizes)
    if total > zip_entries.MAX_TOTAL_BYTES:
        raise zip_entries.refuse("ENOSPC", f"{total} bytes in all, over the limit of "
                                           f"{zip_entries.MAX_TOTAL_BYTES}")
    if total > zip_entries.RATIO_FLOOR and total > zip_entries.MAX_RATIO * archive_bytes:
        raise zip_entries.refuse("EINVAL", f"{archive_bytes} bytes expanding to {total}: over "
                                           f"{zip_entries.MAX_RATIO} times (a bomb?)")


class Landing:
    """The target directory and what has been made below it."""

    def __init__(self, ctx: Context, base: str, *, overwrite: bool) -> None:
        self.ctx = ctx
        self.base = base  # absolute; created by ``prepare``
        self.overwrite = overwrite
        self.kinds: dict[tuple[str, ...], str] = {}  # what the archive makes where
        # What is known below the target: a directory is a dict of its names, anything else
        # its kind ("file", "symlink"); a name not there has not been looked up yet.
        self.tree: dict[str, Any] = {}
        self.made = 0

    async def prepare(self) -> None:
        """Create the target directory (and its parents) if missing."""
        if not self.ctx.vfs.exists(self.base):
            await self.ctx.vfs.mkdir(self.base, recursive=True)

    @staticmethod
    def names(raw: str) -> tuple[str, ...]:
        """A member's name as checked names, after what GNU tar drops: the leading `/`, `.`
        segments and doubled slashes (`./d/` is `d`; `./` alone, the target itself, is
        ``()``); `..` and the rest of ``check_name``'s refusals stay refused."""
        kept = "/".join(part for part in raw.split("/") if part not in ("", "."))
        if not kept:
            return ()
        try:
            return zip_entries.check_name(kept)
        except FsError as exc:
            raise Refusal(f"{quote_arg(raw)}: {exc.hint}") from None

    def _kind(self, names: tuple[str, ...]) -> str | None:
        if names in self.kinds:
            return self.kinds[names]
        try:
            return self.ctx.vfs.lstat(self._path(names)).type
        except OSError:
            return None

    def _path(self, names: tuple[str, ...]) -> str:
        return posixpath.join(self.base, *names)

    def _above(self, names: tuple[str, ...]) -> int:
        """How many of the directories above the member ``names`` exist (the others are
        missing, and so is everything below the first of them), after checking that they are
        real directories: ``Refusal`` for a file or a symlink among them. Each is looked up
        on the disk once, the first time a member is below it."""
        node = self.tree
        for depth, name in enumerate(names[:-1], 1):
            child = node.get(name)
            if child is None:
                found = self._kind(names[:depth])
                if found is None:
                    return depth - 1
                child = node[name] = {} if found == "directory" else found
            if not isinstance(child, dict):
                raise Refusal(f"{quote_arg('/'.join(names))}: below the {child} "
                              f"{quote_arg('/'.join(names[:depth]))}; not extracted")
            node = child
        return len(names) - 1

    def place(self, names: tuple[str, ...], kind: str) -> str:
        """The path a member goes to, after checking that every directory above it inside
        the target is a real directory (never a symlink or a file on the disk), and what
        is there may be replaced."""
        self._above(names)
        there = self._kind(names)
        name = quote_arg("/".join(names))
        if there == "directory" and kind != "directory":
            raise Refusal(f"{name}: a directory is in the way; not replaced")
        if there not in (None, "directory") and kind == "directory":
            raise Refusal(f"{name}: a {there} is in the way of a directory; not replaced")
        if there not in (None, "directory") and not self.overwrite \
                and names not in self.kinds:
            raise Refusal(f"{name}: exists; not replaced (-o replaces)")
        return self._path(names)

    async def directory(self, names: tuple[str, ...], mode: int | None) -> None:
        """Make a directory member (an existing directory is kept)."""
        path = self.place(names, "directory")
        await self._parents(names)
        if self._kind(names) != "directory":
            await self.ctx.vfs.mkdir(path)
        if mode is not None:
            await self.ctx.vfs.chmod(path, mode & 0o7777)
        await self._made(names, "directory")

    async def file(self, names: tuple[str, ...], chunks: Iterable[bytes], declared: int,
                   mode: int | None) -> None:
        """Make a file member from its data, held to its declared size."""
        path = self.place(names, "file")
        await self._parents(names)
        if self._kind(names) == "symlink":
            await self.ctx.vfs.unlink(path)  # replaced, never written through
        stream = self.ctx.vfs.stream_writer(path)
        got = 0
        try:
            for piece in chunks:
                got += len(piece)
                if got > declared:
                    raise Refusal(f"{quote_arg('/'.join(names))}: more data than its header "
                                  "says; not extracted")
                await stream.write(piece)
            if got != declared:
                raise Refusal(f"{quote_arg('/'.join(names))}: {got} bytes where its header "
                              f"says {declared}; not extracted")
        except BaseException:
            await stream.abort()
            raise
        await stream.close()
        if mode is not None:
            await self.ctx.vfs.chmod(path, mode & 0o7777)
        await self._made(names, "file")

    async def link(self, names: tuple[str, ...], target: str) -> None:
        """Make a symlink member, when its target stays inside the target directory."""
        path = self.place(names, "symlink")
        entry = zip_entries.Entry(names, "symlink", None, None, None, None)
        try:
            zip_entries.check_link(entry, target, self._kind)
        except FsError as exc:
            raise Refusal(f"{quote_arg('/'.join(names))}: {exc.hint}; not extracted") from None
        await self._parents(names)
        if self._kind(names) is not None:
            await self.ctx.vfs.unlink(path)
        await self.ctx.vfs.symlink(target, path)
        await self._made(names, "symlink")

    async def times(self, names: tuple[str, ...], mtime_ms: float) -> None:
        """Give a made file or directory its time from the archive."""
        try:
            await self.ctx.vfs.utimes(self._path(names), mtime_ms, mtime_ms)
        except OSError as exc:
            self.ctx.err(f"{quote_arg('/'.join(names))}: cannot set its time: {describe(exc)}")

    async def _parents(self, names: tuple[str, ...]) -> None:
        """Make the missing directories above ``names``, each from its parent."""
        for depth in range(self._above(names) + 1, len(names)):
            await self.ctx.vfs.mkdir(self._path(names[:depth]))
            self._known(names[:depth], "directory")

    def _known(self, names: tuple[str, ...], kind: str) -> None:
        """``names`` is now ``kind`` (its parents are in the tree already)."""
        self.kinds[names] = kind
        if not names:  # the target itself (tar's `./`)
            return
        node = self.tree
        for name in names[:-1]:
            node = node[name]
        if kind != "directory":
            node[names[-1]] = kind
        elif not isinstance(node.get(names[-1]), dict):
            node[names[-1]] = {}

    async def _made(self, names: tuple[str, ...], kind: str) -> None:
        self._known(names, kind)
        self.made += 1
        await cancel.checkpoint("extract", self.made, len(self.kinds), "entries")

