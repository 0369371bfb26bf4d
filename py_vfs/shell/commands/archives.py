"""zip and unzip, as Info-ZIP's tools for the options listed, with Python's ``zipfile``.

zip streams: each file passes through a chunk at a time into the archive, which streams into
the disk (data descriptors after each member, so nothing is rewritten). unzip reads the
archive into memory whole (the central directory is at its end) and extracts each member
through ``landing.Landing``, which checks names, sizes and links before anything is written.
"""

from __future__ import annotations

import io
import posixpath
import stat as stat_module
import zipfile
import zlib
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING

from ...archives import zip_entries
from ...archives.archive import ZipSink
from ...core.errors import FsError
from ...disk.streams import committing
from ..context import Context, describe, list_names
from ..format import quote_arg, visible
from .landing import Landing, Refusal, check_sizes, read_archive
from .options import parse
from .registry import UsageError, command

if TYPE_CHECKING:
    from ...disk.streams import WriteStream

CHUNK = 64 * 1024


def member_name(typed: str) -> str:
    """An archive member's name for a path as typed: relative, without `./`, and without the
    leading `/` and `../` that would make it land elsewhere (as GNU tar strips them)."""
    parts = [part for part in posixpath.normpath(typed).split("/") if part not in ("", ".")]
    while parts and parts[0] == "..":
        parts.pop(0)
    return "/".join(parts)


def walk(ctx: Context, typed: str, recursive: bool) -> Iterator[tuple[str, str]]:
    """(member name, absolute path) of a path as typed and, with ``recursive``, of everything
    below it, each directory before what it holds, names sorted; symlinks not followed."""
    stack = [(member_name(typed), ctx.resolve(typed))]
    while stack:
        name, path = stack.pop()
        yield name, path
        if recursive and ctx.vfs.lstat(path).type == "directory":
            stack.extend((posixpath.join(name, child) if name else child,
                          posixpath.join(path, child))
                         for child in reversed(list_names(ctx.vfs, path)))


@command("zip [-qry] ARCHIVE PATH...", "put files (-r: and trees) into a zip archive")
async def zip_(ctx: Context, args: list[str]) -> int:
    """Write ARCHIVE (a new zip; an existing one is replaced, not updated) holding each PATH:
    a file, or with -r a directory and everything below it. Members are named as the PATHs
    are typed (a leading / or ../ dropped); symlinks are stored as links (as zip -y), with
    their modes and times. -q: no `adding:` lines."""
    options = parse(args, "qry")
    if len(options.operands) < 2:
        raise UsageError("needs ARCHIVE and at least one PATH")
    archive_name, *typed = options.operands
    target = ctx.resolve(archive_name)
    members: list[tuple[str, str]] = []
    for name in typed:
        try:
            ctx.vfs.lstat(ctx.resolve(name))
        except OSError:
            ctx.err(f"warning: name not matched: {visible(name)}")
            continue
        members.extend((member, path) for member, path in walk(ctx, name, "r" in options)
                       if member and path != target)
    if not members:
        ctx.err(f"error: Nothing to do! ({visible(archive_name)})")
        return 12
    sink = ZipSink()
    writer = ctx.vfs.stream_writer(target)
    async with committing(writer):
        with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as archive:
            for member, path in members:
                await _add(ctx, archive, sink, writer, member, path, quiet="q" in options)
        await writer.write(sink.take())
    return 0


async def _add(ctx: Context, archive: zipfile.ZipFile, sink: ZipSink, writer: WriteStream,
               member: str, path: str, *, quiet: bool) -> None:
    node = ctx.vfs.lstat(path)
    size = node.size if node.type == "file" else 0
    info = zip_entries.entry_info(member, node.type, node.mode, node.mtime_ms, node.atime_ms,
                                  node.ctime_ms, size)
    if node.type == "directory":
        archive.mkdir(info)
    elif node.type == "symlink":
        info.compress_type = zipfile.ZIP_STORED
        archive.writestr(info, ctx.vfs.readlink(path).encode())
    else:
        if size == 0:
            info.compress_type = zipfile.ZIP_STORED
        with archive.open(info, "w") as entry:
            async for piece in ctx.vfs.open_read(path):
                entry.write(piece)
                await writer.write(sink.take())
    await writer.write(sink.take())
    if not quiet:
        written = archive.getinfo(info.filename)
        if written.compress_type == zipfile.ZIP_DEFLATED and written.file_size:
            saved = round(100 * (1 - written.compress_size / written.file_size))
            how = f"deflated {max(saved, 0)}%"
        else:
            how = "stored 0%"
        ctx.out(f"  adding: {visible(info.filename)} ({how})\n")


@command("unzip [-lopq] [-d DIR] ARCHIVE [MEMBER...]",
         "list (-l) or extract a zip archive (-p: members to standard output)")
async def unzip(ctx: Context, args: list[str]) -> int:
    """Extract every member of the zip ARCHIVE below DIR (-d; default the current directory,
    created if missing), with its mode and time; -l lists the members instead. An existing
    file is not replaced without -o (it is reported, and the status is 1, what Info-ZIP's
    unzip does when it cannot ask). Hostile members are refused: names leading outside DIR,
    links leading outside DIR, members through a symlink, bombs (docs/shell.md)."""
    options = parse(args, "lopqn", "d")
    if not options.operands or (len(options.operands) > 1 and "p" not in options):
        raise UsageError("needs one ARCHIVE (MEMBERs only with -p)")
    name, *wanted = options.operands
    try:
        data = await read_archive(ctx, name)
    except OSError:
        ctx.err(f" cannot find or open {visible(name)}, {visible(name)}.zip or "
                f"{visible(name)}.ZIP.")
        return 9
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, ValueError, EOFError, OSError) as exc:
        ctx.err(f"{quote_arg(name)}: not a zip archive ({visible(str(exc))})")
        return 9
    if "p" in options:
        return await _to_stdout(ctx, archive, infos, wanted)
    quiet = "q" in options
    if not quiet:
        ctx.out(f"Archive:  {visible(name)}\n")
    if "l" in options:
        _listing(ctx, infos)
        return 0
    try:
        check_sizes([info.file_size for info in infos], len(data))
        entries = zip_entries.plan(infos, len(data))
    except FsError as exc:
        ctx.err(f"{quote_arg(name)}: {describe(exc)}; nothing extracted")
        return 3
    landing = Landing(ctx, ctx.resolve(options.values.get("d", ".")),
                      overwrite="o" in options and "n" not in options)
    await landing.prepare()
    status = 0
    made = []
    for entry in entries:
        try:
            await _extract(ctx, archive, entry, landing, quiet)
            made.append(entry)
        except Refusal as exc:
            ctx.err(str(exc))
            status = 1
    for entry in reversed(made):  # directories after what they hold: those touch them
        if entry.mtime_ms is not None and entry.kind != "symlink":
            await landing.times(entry.names, entry.mtime_ms)
    return status


async def _extract(ctx: Context, archive: zipfile.ZipFile, entry: zip_entries.Entry,
                   landing: Landing, quiet: bool) -> None:
    shown = visible(entry.name)
    if entry.kind == "directory":
        await landing.directory(entry.names, entry.mode)
        if not quiet and entry.info is not None:
            ctx.out(f"   creating: {shown}/\n")
        return
    assert entry.info is not None  # only directories are implied
    if entry.kind == "symlink":
        target = b"".join(_chunks(archive, entry.info))
        try:
            await landing.link(entry.names, target.decode("utf-8"))
        except UnicodeDecodeError:
            raise Refusal(f"{quote_arg(entry.name)}: a link target that is not UTF-8; "
                          "not extracted") from None
        if not quiet:
            ctx.out(f"    linking: {shown}  -> {visible(target.decode())} \n")
        return
    mode = entry.mode if entry.mode is None else stat_module.S_IMODE(entry.mode)
    await landing.file(entry.names, _chunks(archive, entry.info), entry.info.file_size, mode)
    if not quiet:
        verb = "  inflating" if entry.info.compress_type == zipfile.ZIP_DEFLATED \
            else " extracting"
        ctx.out(f"{verb}: {shown:<24}\n")


async def _to_stdout(ctx: Context, archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo],
                     wanted: list[str]) -> int:
    """unzip -p: the data of each file member (or of those named), one after another, held
    to its declared size; a MEMBER not in the archive is reported (status 11, as unzip)."""
    names = {info.filename for info in infos}
    for info in infos:
        if info.is_dir() or (wanted and info.filename not in wanted):
            continue
        sent = 0
        try:
            for piece in _chunks(archive, info):
                sent += len(piece)
                if sent > info.file_size:
                    raise Refusal(f"{quote_arg(info.filename)}: more data than its header says")
                await ctx.write(piece)
        except Refusal as exc:
            ctx.err(str(exc))
            return 1
    missing = [member for member in wanted if member not in names]
    for member in missing:
        ctx.err(f"caution: filename not matched:  {visible(member)}")
    return 11 if missing else 0


def _chunks(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    """A member's data a chunk at a time; damaged data (CRC, deflate) is a refusal."""
    try:
        with archive.open(info) as source:
            while piece := source.read(CHUNK):
                yield piece
    except (zipfile.BadZipFile, EOFError, zlib.error, ValueError, OSError, RuntimeError,
            NotImplementedError) as exc:
        raise Refusal(f"{quote_arg(info.filename)}: damaged member ({visible(str(exc))}); "
                      "not extracted") from None


def _listing(ctx: Context, infos: list[zipfile.ZipInfo]) -> None:
    """unzip -l: length, date, time and name of each member, then the totals."""
    lines = ["  Length      Date    Time    Name\n",
             "---------  ---------- -----   ----\n"]
    total = 0
    for info in infos:
        try:
            moment = datetime(*info.date_time).strftime("%Y-%m-%d %H:%M")
        except ValueError:
            moment = "1980-00-00 00:00"
        lines.append(f"{info.file_size:>9}  {moment}   {visible(info.filename)}\n")
        total += info.file_size
    count = f"{len(infos)} file" + ("" if len(infos) == 1 else "s")
    lines.append("---------                     -------\n")
    lines.append(f"{total:>9}                     {count}\n")
    ctx.out("".join(lines))
