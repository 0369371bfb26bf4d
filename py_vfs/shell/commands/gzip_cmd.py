"""gzip, gunzip and zcat: GNU gzip's command line over the VFS (the format: gzip_format.py).

A FILE is replaced by FILE.gz (or back), keeping its mode and modification time, unless -c
(to standard output) or -k (keep it). The output streams into the disk a chunk at a time and
replaces the target in one commit when it is whole; a failure leaves no half file. Statuses as
GNU gzip: 0, 1 for an error, 2 for a warning (a file skipped, trailing garbage).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ...disk.streams import committing
from ..context import Context, describe, lexists
from ..format import shown_name, visible
from ..pipes import Input, StreamInput
from .gzip_format import GzipError, Inflater, TrailingGarbage, deflate
from .options import parse
from .registry import Usage, UsageError, command

if TYPE_CHECKING:
    from ...core.node import Stat

# gzip's usage errors: `gzip: invalid option -- 'y'`, then a `Try` line quoted `like this'.
GZIP_ERRORS = Usage(1)
SUFFIXES = ((".gz", ""), ("-gz", ""), (".z", ""), ("-z", ""), ("_z", ""), (".tgz", ".tar"),
            (".taz", ".tar"))
LONG = {"stdout": False, "to-stdout": False, "decompress": False, "uncompress": False,
        "force": False, "keep": False, "list": False, "no-name": False, "name": False,
        "quiet": False, "test": False, "fast": False, "best": False, "verbose": False}
# What each flag sets in the _Job (the last one given wins where two set the same field).
_SETS: dict[str, tuple[str, object]] = {
    **{digit: ("level", int(digit)) for digit in "123456789"},
    "fast": ("level", 1), "best": ("level", 9),
    **dict.fromkeys(("d", "decompress", "uncompress"), ("decompress", True)),
    **dict.fromkeys(("c", "stdout", "to-stdout"), ("stdout", True)),
    **dict.fromkeys(("f", "force"), ("force", True)),
    **dict.fromkeys(("k", "keep"), ("keep", True)),
    **dict.fromkeys(("l", "list"), ("listing", True)),
    **dict.fromkeys(("t", "test"), ("test", True)),
    **dict.fromkeys(("n", "no-name"), ("name", False)),
    **dict.fromkeys(("N", "name"), ("name", True)),
    **dict.fromkeys(("q", "quiet"), ("quiet", True)),
    **dict.fromkeys(("v", "verbose"), ("verbose", True)),
}


@dataclass
class _Job:
    decompress: bool = False
    stdout: bool = False
    force: bool = False
    keep: bool = False
    listing: bool = False
    test: bool = False
    name: bool | None = None  # -N / -n (None: the default of the direction)
    quiet: bool = False
    verbose: bool = False
    level: int = 6
    suffix: str = ".gz"  # -S


def _job(args: list[str], decompress: bool, stdout: bool) -> tuple[_Job, list[str]]:
    digits = "123456789"
    try:
        options = parse(args, "cdfklnNqtv" + digits, "S", {**LONG, "suffix": True})
    except UsageError as exc:
        # gunzip and zcat are gzip in GNU's scripts: its name in both lines.
        raise UsageError("", detail=f"gzip: {exc}\nTry `gzip --help' for more "
                                    "information.") from None
    job = _Job(decompress=decompress, stdout=stdout)
    if "S" in options.values or "suffix" in options.values:
        job.suffix = options.values.get("S", options.values.get("suffix", ""))
        if not job.suffix or "/" in job.suffix:
            raise UsageError("", detail=f"gzip: invalid suffix '{visible(job.suffix)}'")
    for flag in options.order:
        if flag in _SETS:  # not -S, --suffix (read above)
            setattr(job, *_SETS[flag])
    return job, options.operands


def _plain_name(name: str, extra: str = ".gz") -> str | None:
    """The name gunzip gives FILE's output (`a.gz` -> `a`, `t.tgz` -> `t.tar`; ``extra``:
    -S's suffix too), or None."""
    for suffix, replacement in ((extra.lower(), ""), *SUFFIXES):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)] + replacement
    return None


class _Run:
    """One gzip command: its options, and the status so far (the worst of all FILEs)."""

    def __init__(self, ctx: Context, job: _Job) -> None:
        self.ctx, self.job, self.status = ctx, job, 0
        self.totals = [0, 0]
        self.headed = False
        self.overhead = 0
        self.counted = 0  # bytes read from standard input (for -v)

    def error(self, message: str, status: int = 1, *, lead: bool = False) -> None:
        """Report ``message`` as GNU gzip does (always as `gzip:`, which gunzip and zcat
        run; a damaged input's report after an empty line) and keep the worst status."""
        if status == 1 or not self.job.quiet:
            # The names in it shown visibly; its own tab and newlines kept.
            shown = "\n".join("\t".join(visible(piece) for piece in part.split("\t"))
                              for part in message.split("\n"))
            self.ctx.stderr.write_nowait(f"{chr(10) * lead}gzip: {shown}\n")
        self.status = 1 if 1 in (status, self.status) else max(status, self.status)

    def say(self, name: str | None, original: int, compressed: int, stored: bytes | None,
            outcome: str) -> None:
        """-v: `NAME:<TAB> RATIO -- OUTCOME` on standard error, as gzip -v prints it."""
        if not self.job.verbose:
            return
        overhead = 18 + (len(stored) + 1 if stored is not None else 0)
        ratio = _ratio(original, compressed - overhead)
        line = ratio if name is None else f"{visible(name)}:\t{ratio} -- {visible(outcome)}"
        self.ctx.stderr.write_nowait(line + "\n")

    async def stream(self) -> None:
        """Standard input to standard output."""
        ctx, job = self.ctx, self.job
        if job.decompress or job.listing or job.test:
            inflater = await self.expand(Inflater(ctx.stdin, "stdin"), None)
            if inflater is not None and job.listing:
                self.list_line("stdout", inflater.reader.consumed, inflater, None)
            return
        if ctx.stdout.isatty and not job.force:
            self.error("compressed data not written to a terminal. Use -f to force "
                       "compression.\nFor help, type: gzip -h")
            return
        written = 0
        async for piece in deflate(_Counted(ctx.stdin, self), job.level, None, 0):
            written += len(piece)
            await ctx.write(piece)
        self.say(None, self.counted, written, None, "")

    async def expand(self, inflater: Inflater, target: str | None) -> Inflater | None:
        """Decompress to standard output (``target`` None), into ``target``, or nowhere
        (-t, -l); the inflater, or None after an error (reported)."""
        ctx, job = self.ctx, self.job
        writer = ctx.vfs.stream_writer(target) if target else None
        try:
            async with committing(writer):
                try:
                    async for piece in inflater.chunks():
                        if writer is not None:
                            await writer.write(piece)
                        elif not (job.test or job.listing):
                            await ctx.write(piece)
                except TrailingGarbage:  # what came before is whole: it is kept
                    self.error(f"{inflater.label}: decompression OK, trailing garbage "
                               "ignored", 2, lead=True)
        except GzipError as exc:
            self.error(f"{inflater.label}: {exc}", lead=True)
            return None
        return inflater

    def _target(self, name: str, expanding: bool) -> str | None:
        """The file FILE becomes (None: standard output or none); ValueError (reported)
        when FILE is skipped."""
        job = self.job
        if job.stdout or job.test or job.listing:
            return None
        base = posixpath.basename(name)
        if expanding:
            plain = _plain_name(base, job.suffix)
            if plain is None:
                self.error(f"{name}: unknown suffix -- ignored", 2)
                raise ValueError(name)
            return posixpath.join(posixpath.dirname(name), plain)
        if _plain_name(base, job.suffix) is not None:
            suffix = next(s for s, _ in ((job.suffix, ""), *SUFFIXES)
                          if base.lower().endswith(s.lower()))
            self.error(f"{name} already has {suffix} suffix -- unchanged", 0)
            raise ValueError(name)
        return name + job.suffix

    async def one(self, name: str) -> None:
        """One FILE operand."""
        ctx, job = self.ctx, self.job
        if name == "-":
            await self.stream()
            return
        path = ctx.resolve(name)
        expanding = job.decompress or job.listing or job.test
        if expanding and not lexists(ctx.vfs, path) and _plain_name(
                posixpath.basename(name), job.suffix) is None:
            name += job.suffix  # `gunzip a` reads a.gz, as gzip does
            path = ctx.resolve(name)
        try:
            node = ctx.vfs.lstat(path)
            if node.type == "symlink" and not (job.stdout or job.force):
                raise OSError(40, "Too many levels of symbolic links")
            node = ctx.vfs.stat(path)
        except OSError as exc:
            self.error(f"{name}: {describe(exc)}")
            return
        if node.type == "directory":
            self.error(f"{name} is a directory -- ignored", 2)
            return
        try:
            target = self._target(name, expanding)
        except ValueError:
            return
        source = StreamInput(ctx.vfs.open_read(path))
        if not expanding:
            if self._refused(target):
                return
            await self.squeeze(name, source, target, node)
            return
        inflater = Inflater(source, name)
        if target is not None:
            try:
                await inflater.begin()
            except GzipError as exc:
                self.error(f"{name}: {exc}", lead=True)
                return
            if job.name and inflater.name:
                # -N: the stored name (its last component only), beside the compressed file.
                stored = posixpath.basename(inflater.name.decode("utf-8", "surrogateescape"))
                target = posixpath.join(posixpath.dirname(name), stored or target)
            if self._refused(target):
                return
        if await self.expand(inflater, ctx.resolve(target) if target else None) is None:
            return
        if job.listing:
            self.list_line(name, node.size, inflater, node.mtime_ms)
            return
        if job.test:
            if job.verbose:
                ctx.stderr.write_nowait(f"{visible(name)}:\t OK\n")
            return
        if target is not None:
            await self.finish(path, ctx.resolve(target), node,
                              inflater.mtime * 1000 if job.name and inflater.mtime else None)
        self.say(name, inflater.total, node.size, inflater.name, self._outcome(target))

    def _refused(self, target: str | None) -> bool:
        """An existing output is not overwritten without -f (a warning, status 2)."""
        if target is None or self.job.force or not self.ctx.vfs.exists(self.ctx.resolve(target)):
            return False
        self.error(f"{target} already exists;\tnot overwritten", 2)
        return True

    async def squeeze(self, name: str, source: Input, target: str | None, node: Stat) -> None:
        ctx, job = self.ctx, self.job
        stored = None if job.name is False else posixpath.basename(name).encode(
            "utf-8", "surrogateescape")
        mtime = 0 if job.name is False else int(node.mtime_ms // 1000)
        pieces = deflate(source, job.level, stored, mtime)
        written = 0
        if target is None:
            async for piece in pieces:
                written += len(piece)
                await ctx.write(piece)
            self.say(name, node.size, written, stored, self._outcome(None))
            return
        writer = ctx.vfs.stream_writer(ctx.resolve(target))
        async with committing(writer):
            async for piece in pieces:
                written += len(piece)
                await writer.write(piece)
        await self.finish(ctx.resolve(name), ctx.resolve(target), node, None)
        self.say(name, node.size, written, stored, self._outcome(target))

    def _outcome(self, target: str | None) -> str:
        if target is None:
            return "replaced with stdout"
        return f"created {target}" if self.job.keep else f"replaced with {target}"

    async def finish(self, path: str, target: str, node: Stat, mtime_ms: float | None) -> None:
        """The new file takes the old one's mode and times; the old one goes (unless -k)."""
        ctx = self.ctx
        if not ctx.vfs.exists(target):  # -N named another file than the one written
            return
        await ctx.vfs.chmod(target, node.mode & 0o7777)
        stamp = mtime_ms if mtime_ms is not None else node.mtime_ms
        await ctx.vfs.utimes(target, node.atime_ms, stamp)
        if not self.job.keep:
            await ctx.vfs.unlink(path)

    def list_line(self, name: str, compressed: int, inflater: Inflater,
                  mtime_ms: float | None) -> None:
        """One line of -l: sizes, ratio, the name the file would get (-v: first the method,
        CRC and time, the header's or else the file's)."""
        verbose = self.job.verbose
        if not self.headed:
            self.ctx.out(("method  crc     date  time  " if verbose else "")
                         + "         compressed        uncompressed  ratio uncompressed_name\n")
            self.headed = True
        if verbose:
            seconds = inflater.mtime or (mtime_ms or 0) / 1000
            moment = datetime.fromtimestamp(seconds, tz=UTC).astimezone()
            self.ctx.out(f"defla {inflater.crc:08x} {moment:%b} {moment.day:2d} "
                         f"{moment:%H:%M} ")
        size = inflater.total
        self.totals[0] += compressed
        self.totals[1] += size
        plain = _plain_name(name, self.job.suffix) or name
        # What is not deflated data: the header (with the name stored) and the trailer.
        self.overhead = 18 + (len(inflater.name) + 1 if inflater.name is not None else 0)
        self.ctx.out(f"{compressed:>19} {size:>19} {_ratio(size, compressed - self.overhead)} "
                     f"{shown_name(plain)}\n")


class _Counted(Input):
    """An input whose bytes are counted into ``run.counted`` as they are read."""

    def __init__(self, source: Input, run: _Run) -> None:
        super().__init__()
        self.source, self.run = source, run

    async def _next(self) -> bytes:
        piece = await self.source.read()
        self.run.counted += len(piece)
        return piece


def _ratio(size: int, deflated: int) -> str:
    """GNU gzip's ratio: the share of the input the deflated data saves, one decimal."""
    return f"{100 * (size - deflated) / size if size else 0:5.1f}%"


async def _main(ctx: Context, args: list[str], decompress: bool, stdout: bool) -> int:
    job, operands = _job(args, decompress, stdout)
    run = _Run(ctx, job)
    for name in operands or ["-"]:
        try:
            await run.one(name)
        except OSError as exc:  # the output cannot be written (a read-only mount, EFBIG...)
            run.error(f"{name}: {describe(exc)}")
    if job.listing and len(operands) > 1:
        compressed, size = run.totals
        deflated = compressed - run.overhead  # GNU subtracts the last file's overhead only
        lead = " " * 28 if job.verbose else ""  # under `defla CRC DATE TIME `
        ctx.out(f"{lead}{compressed:>19} {size:>19} {_ratio(size, deflated)} (totals)\n")
    return run.status


@command("gzip [-cdfklnNqtv] [-S SUF] [-1..-9] [FILE...]",
         "compress files (or -d: decompress them)", errors=GZIP_ERRORS)
async def gzip(ctx: Context, args: list[str]) -> int:
    """Replace each FILE by FILE.gz, compressed (none or `-`: standard input to standard
    output), keeping its mode and modification time; the name and time are stored in the
    header unless -n. -c: write to standard output, keep FILE; -k: keep FILE; -f: overwrite
    an existing output, follow a symlink; -d: decompress (as gunzip); -t: test the integrity;
    -l: list sizes and ratio; -1 (fast) to -9 (best), default 6; -N: when decompressing, name
    the output and set its time as the header says; -q: no warnings. Status 0, 1 on an
    error, 2 on a warning (a FILE skipped)."""
    return await _main(ctx, args, False, False)


@command("gunzip [-cfklnNqtv] [-S SUF] [FILE...]", "decompress gzip files", errors=GZIP_ERRORS)
async def gunzip(ctx: Context, args: list[str]) -> int:
    """As `gzip -d`: replace each FILE.gz (.gz, .z, -gz, -z, _z; .tgz and .taz give .tar)
    by its decompressed content."""
    return await _main(ctx, args, True, False)


@command("zcat [-fq] [FILE...]", "print the decompressed content of gzip files",
         errors=GZIP_ERRORS)
async def zcat(ctx: Context, args: list[str]) -> int:
    """As `gzip -dc`: decompress each FILE (none or `-`: standard input) to standard
    output; FILE is read as it is named (no suffix is needed)."""
    return await _main(ctx, args, True, True)
