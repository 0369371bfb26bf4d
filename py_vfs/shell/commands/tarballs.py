"""tar: create (-c), list (-t) and extract (-x) tar archives, gzip-compressed with -z, as GNU
tar does for the options listed, with Python's ``tarfile``.

-c streams: each member's header (``TarInfo.tobuf``, GNU format) and then its data a chunk at
a time, through gzip when asked, into the disk or standard output; nothing is held whole.
-t and -x read the archive into memory whole (at most ``archive.MAX_ARCHIVE_BYTES``) and
extract each member through ``landing.Landing``, which checks names, sizes and links.
"""

from __future__ import annotations

import io
import posixpath
import stat as stat_module
import tarfile
import time
import zlib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass

from ...archives import archive as vfs_archive
from ...core.errors import FsError
from ...disk.streams import committing
from ..context import Context, describe, resolve
from ..format import OWNER, quote_arg, visible
from .archives import member_name, walk
from .landing import Landing, Refusal, check_sizes, read_archive
from .options import Options, parse
from .registry import UsageError, command

BLOCK = 512
RECORD = 20 * BLOCK  # GNU tar pads an archive to whole records of 10 KiB
FAILED = "Exiting with failure status due to previous errors"
LONG = {"create": False, "extract": False, "list": False, "gzip": False, "gunzip": False,
        "file": True, "directory": True, "verbose": False}


@dataclass
class _Job:
    """What the command line asks."""

    mode: str  # "c", "x" or "t"
    archive: str  # "-": standard input or output
    directory: str  # -C, absolute
    gzip: bool
    verbose: bool
    paths: list[str]


def _job(ctx: Context, args: list[str]) -> _Job:
    if args and not args[0].startswith("-"):
        args = ["-" + args[0], *args[1:]]  # the old style: `tar czf a.tgz d`
    options: Options = parse(args, "cxtzv", "fC", long=LONG)
    modes = {flag[0] if len(flag) > 1 else flag for flag in options.flags
             if flag in ("c", "x", "t", "create", "extract", "list")}
    modes = {"c" if m == "c" else "x" if m == "e" or m == "x" else "t" for m in modes}
    if len(modes) != 1:
        raise UsageError("You must specify one of the '-Acdtrux', '--delete' or "
                         "'--test-label' options" if not modes else
                         "You may not specify more than one '-Acdtrux', '--delete' or  "
                         "'--test-label' option")
    mode = modes.pop()
    directory = options.values.get("C", options.values.get("directory", "."))
    if mode == "c" and not options.operands:
        raise UsageError("Cowardly refusing to create an empty archive")
    return _Job(mode, options.values.get("f", options.values.get("file", "-")),
                resolve(ctx.cwd, directory),
                bool({"z", "gzip", "gunzip"} & options.flags),
                "v" in options or "verbose" in options, options.operands)


@command("tar -c|-x|-t [-zv] [-f ARCHIVE] [-C DIR] [PATH...]",
         "create (-c), extract (-x) or list (-t) a tar archive (-z: gzip)")
async def tar(ctx: Context, args: list[str]) -> int:
    """-c writes the PATHs (relative to -C DIR), directories with everything below them,
    into ARCHIVE; -x makes ARCHIVE's members below -C DIR (default .); -t lists them (-v: as
    `ls -l` does); on -x and -t, PATHs choose the members (each with what is below it).
    -f ARCHIVE: the archive file (`-` or no -f: standard input or output);
    -z: gzip-compressed (on -x and -t it is detected anyway). The old style `tar czf A.tgz
    d` works too. Symlinks are archived as links, with modes and times; on -x, members that
    would land outside DIR (absolute after the `/` is stripped, `..`, through a symlink, a
    link leading out) are refused, each reported, and the status is 2."""
    job = _job(ctx, args)
    if job.mode == "c":
        return await _create(ctx, job)
    try:
        data = await (read_archive(ctx, job.archive) if job.archive != "-"
                      else ctx.stdin.read_all())
    except OSError as exc:
        ctx.err(f"{visible(job.archive)}: Cannot open: {describe(exc)}")
        ctx.err("Error is not recoverable: exiting now")
        return 2
    try:
        # Nothing to close but the BytesIO, which goes with the archive's bytes.
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115
        members = archive.getmembers()
    except (tarfile.TarError, EOFError, OSError, zlib.error):
        ctx.err("This does not look like a tar archive")
        ctx.err(FAILED)
        return 2
    members, missing = _selected(members, job.paths)
    if job.mode == "t":
        for member in members:
            ctx.out(_listed(member, job.verbose))
        status = 0
    else:
        status = await _extract(ctx, job, archive, members, len(data))
    for name in missing:
        ctx.err(f"{visible(name)}: Not found in archive")
    if missing:
        ctx.err(FAILED)
        return 2
    return status


def _selected(members: list[tarfile.TarInfo],
              names: list[str]) -> tuple[list[tarfile.TarInfo], list[str]]:
    """The members -t and -x act on: all, or those the NAMEs name, each with what is below it
    (`tar tf a.tar d` lists d/ and d/f); and the NAMEs no member matched."""
    if not names:
        return members, []
    wanted = [name.rstrip("/") or "/" for name in names]

    def matches(member: tarfile.TarInfo, name: str) -> bool:
        own = member.name.rstrip("/")
        return own == name or own.startswith(name + "/")

    chosen = [member for member in members if any(matches(member, name) for name in wanted)]
    missing = [name for name, bare in zip(names, wanted, strict=True)
               if not any(matches(member, bare) for member in members)]
    return chosen, missing


# ------------------------------------------------------------------ -c


async def _create(ctx: Context, job: _Job) -> int:
    status = 0
    to_stdout = job.archive == "-"
    target = None if to_stdout else resolve(ctx.cwd, job.archive)
    members: list[tuple[str, str]] = []
    stripped = False
    for typed in job.paths:
        path = resolve(job.directory, typed)
        try:
            ctx.vfs.lstat(path)
        except OSError as exc:
            ctx.err(f"{visible(typed)}: Cannot stat: {describe(exc)}")
            status = 2
            continue
        if typed.startswith("/") and not stripped:
            ctx.err("Removing leading `/' from member names")
            stripped = True
        base = member_name(typed) or "."
        for _, member_path in walk(ctx, path, True):
            name = base if member_path == path else \
                f"{base.rstrip('/')}/{posixpath.relpath(member_path, path)}"
            if member_path == target:
                ctx.err(f"{visible(name)}: file is the archive; not dumped")
                continue
            members.append((name, member_path))
    writer = None if target is None else ctx.vfs.stream_writer(target)
    squeeze = zlib.compressobj(6, zlib.DEFLATED, 31) if job.gzip else None
    written = 0

    async def emit(data: bytes) -> None:
        nonlocal written
        written += len(data)
        out = squeeze.compress(data) if squeeze else data
        if out:
            await (ctx.write(out) if writer is None else writer.write(out))

    async with committing(writer):
        for name, path in members:
            if job.verbose:
                line = visible(name) + ("/" if ctx.vfs.lstat(path).type == "directory" else "")
                # Names go to stderr when the archive itself goes to stdout, as GNU tar does.
                (ctx.stderr if to_stdout else ctx.stdout).write_nowait(line + "\n")
            await _member(ctx, name, path, emit)
        await emit(bytes(2 * BLOCK))
        await emit(bytes(-written % RECORD))
        if squeeze:
            tail = squeeze.flush()
            await (ctx.write(tail) if writer is None else writer.write(tail))
    if status:
        ctx.err(FAILED)
    return status


async def _member(ctx: Context, name: str, path: str,
                  emit: Callable[[bytes], Awaitable[None]]) -> None:
    """One member: its header, then its data padded to whole blocks."""
    node = ctx.vfs.lstat(path)
    info = tarfile.TarInfo(name)
    info.mode = node.mode & 0o7777
    info.mtime = int(node.mtime_ms // 1000)
    info.uname = info.gname = OWNER
    info.uid = info.gid = 1000
    if node.type == "directory":
        info.type = tarfile.DIRTYPE
    elif node.type == "symlink":
        info.type = tarfile.SYMTYPE
        info.linkname = ctx.vfs.readlink(path)
    else:
        info.size = node.size
    await emit(info.tobuf(tarfile.GNU_FORMAT, "utf-8", "surrogateescape"))
    if node.type != "file":
        return
    sent = 0
    async for piece in ctx.vfs.open_read(path):
        sent += len(piece)
        await emit(piece)
    await emit(bytes(-sent % BLOCK))


# ------------------------------------------------------------------ -t and -x


def _listed(member: tarfile.TarInfo, verbose: bool) -> str:
    """A member as `tar -t` shows it (-v: mode, owner/group, size, date, name, -> target)."""
    name = visible(member.name) + ("/" if member.isdir() and not member.name.endswith("/")
                                   else "")
    if not verbose:
        return name + "\n"
    kind = {tarfile.DIRTYPE: stat_module.S_IFDIR, tarfile.SYMTYPE: stat_module.S_IFLNK}.get(
        member.type, stat_module.S_IFREG)
    owner = f"{visible(member.uname or str(member.uid))}/{visible(member.gname or str(member.gid))}"
    size = str(member.size)
    moment = time.strftime("%Y-%m-%d %H:%M", time.localtime(member.mtime))
    target = f" -> {visible(member.linkname)}" if member.issym() else ""
    return (f"{stat_module.filemode(kind | member.mode & 0o7777)} {owner}"
            f"{' ' * max(1, 19 - len(owner) - len(size))}{size} {moment} {name}{target}\n")


async def _extract(ctx: Context, job: _Job, archive: tarfile.TarFile,
                   members: list[tarfile.TarInfo], archive_bytes: int) -> int:
    try:
        check_sizes([member.size for member in members if member.isfile()], archive_bytes)
    except FsError as exc:
        ctx.err(f"{visible(job.archive)}: {describe(exc)}; nothing extracted")
        ctx.err(FAILED)
        return 2
    landing = Landing(ctx, job.directory, overwrite=True)
    if not ctx.vfs.exists(job.directory):
        ctx.err(f"{visible(job.directory)}: Cannot open: No such file or directory")
        ctx.err("Error is not recoverable: exiting now")
        return 2
    status = 0
    stripped = False
    made: list[tuple[tuple[str, ...], float]] = []
    for member in members:
        if member.name.startswith("/") and not stripped:
            ctx.err("Removing leading `/' from member names")
            stripped = True
        try:
            names = Landing.names(member.name)
            if job.verbose:
                ctx.out(_listed(member, False))
            if not names:
                continue  # `./`: the target directory itself
            if member.isdir():
                await landing.directory(names, member.mode)
            elif member.issym():
                await landing.link(names, member.linkname)
            elif member.isfile():
                await landing.file(names, _chunks(archive, member), member.size,
                                   member.mode)
            else:
                kind = "hard link" if member.islnk() else "special file"
                raise Refusal(f"{quote_arg(member.name)}: a {kind} (the VFS has only files, "
                              "directories and symlinks); not extracted")
            if not member.issym():
                made.append((names, member.mtime * 1000.0))
        except Refusal as exc:
            ctx.err(str(exc))
            status = 2
    for names, mtime_ms in reversed(made):  # directories after what they hold
        await landing.times(names, mtime_ms)
    if status:
        ctx.err(FAILED)
    return status


def _chunks(archive: tarfile.TarFile, member: tarfile.TarInfo) -> Iterator[bytes]:
    """A member's data a chunk at a time; a truncated or damaged archive is a refusal."""
    try:
        source = archive.extractfile(member)
        if source is None:
            return
        with source:
            while piece := source.read(vfs_archive.CHUNK_SIZE):
                yield piece
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise Refusal(f"{quote_arg(member.name)}: damaged member ({visible(str(exc))}); "
                      "not extracted") from None
