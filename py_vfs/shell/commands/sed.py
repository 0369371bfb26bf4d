"""sed: GNU sed's stream editor over the VFS: the options, reading the input and the script
files, and writing the results (the script is read by ``sed_script``, run by ``sed_run``).

Regular expressions are POSIX BRE (ERE with -E) translated to Python's syntax (``posix_re``)
and run by Python's ``re``: unlike grep's, a sed pattern can backtrack (sed needs groups for
`\\1`), so a hostile pattern on a long line can be slow; Ctrl-C stops sed between commands.
"""

from __future__ import annotations

import posixpath

from ...core import cancel
from ..context import Context, describe
from ..format import quote_name
from .gnu import getopts, number, open_input
from .registry import GNU, UsageError, command
from .sed_run import Editor, SedFatal, Sink, Source, split_lines
from .sed_script import Command, Parser, ScriptError

BATCH = 64 * 1024  # characters of output written at a time
LONG = ("quiet", "silent", "regexp-extended", "expression=", "file=", "in-place", "separate",
        "null-data", "zero-terminated", "line-length=", "unbuffered", "posix",
        "follow-symlinks")


@command("sed [OPTION]... [SCRIPT] [FILE...]", "edit lines as a stream", errors=GNU)
async def sed(ctx: Context, args: list[str]) -> int:
    """Apply SCRIPT to each line of the FILEs (none or `-`: standard input) and print the
    result, as GNU sed: addresses (N, $, /RE/, first~step, A,B, A,+N, A,~N, 0,/RE/, !),
    commands s y p P d D n N a i c = l q Q r R w W h H g G x b t T : { } z F; -n quiet, -e
    and -f scripts, -E (-r) extended regular expressions, -s separate files, -z lines end
    with NUL, -l N the width of `l`, -i[SUFFIX] edit each FILE in place (first copying it
    to FILE+SUFFIX; a `*` in SUFFIX: the file's name there)."""
    args, suffix = _backup_suffix(args)
    options, operands = getopts(args, "nEre:f:isuzl:", LONG)
    flags = {flag for flag, _ in options}
    quiet = bool(flags & {"-n", "--quiet", "--silent"})
    extended = bool(flags & {"-E", "-r", "--regexp-extended"})
    in_place = bool(flags & {"-i", "--in-place"})
    separate = in_place or bool(flags & {"-s", "--separate"})
    separator = "\0" if flags & {"-z", "--null-data", "--zero-terminated"} else "\n"
    wrap = 70
    pieces: list[tuple[str, str]] = []
    for flag, value in options:
        if flag in ("-l", "--line-length"):
            wrap = number(value, "line length")
        elif flag in ("-e", "--expression"):
            pieces.append((f"-e expression #{len(pieces) + 1}", value))
        elif flag in ("-f", "--file"):
            try:
                data = await open_input(ctx, value).read_all()
            except OSError as exc:
                ctx.err(f"couldn't open file {value}: {describe(exc)}")
                return 4
            text = data.decode("utf-8", "surrogateescape")
            pieces.append((f"file {value}", text[:-1] if text.endswith("\n") else text))
    if not pieces:
        if not operands:
            raise UsageError("missing script")
        pieces = [("-e expression #1", operands.pop(0))]
    try:
        commands = Parser(pieces, extended).parse()
    except ScriptError as exc:
        ctx.err(str(exc))
        return exc.status
    if commands and commands[0].name == "#n" and len(pieces) and pieces[0][1].startswith("#n"):
        quiet = True
    if in_place and not operands:
        ctx.err("no input files")
        return 1
    files = await _read_files(ctx, commands)
    stdout = Sink(separator, bounded=False)
    editor = Editor(commands, quiet, separator, wrap, files, stdout)
    try:
        if in_place:
            status = await _in_place(ctx, editor, operands, suffix, separator)
        else:
            status = await _stream(ctx, editor, operands or ["-"], separate, separator)
    except SedFatal as exc:
        await ctx.write(stdout.take())
        ctx.err(str(exc))
        return exc.status
    await _write_files(ctx, editor)
    return editor.status if editor.status else status


async def _stream(ctx: Context, editor: Editor, names: list[str], separate: bool,
                  separator: str) -> int:
    """Edit the FILEs as one stream (each its own with -s) to standard output."""
    status, streams = 0, []
    lines: list[tuple[str, str, bool]] = []
    for name in names:
        try:
            data = await open_input(ctx, name).read_all()
        except OSError as exc:
            ctx.err(f"can't read {quote_name(name)}: {describe(exc)}")
            status = 2
            continue
        found = split_lines(data.decode("utf-8", "surrogateescape"), name, separator)
        if separate:
            streams.append(found)
        else:
            lines += found
    if not separate:
        streams = [lines]
    for found in streams:
        await _drive(ctx, editor, Source(found), editor.stdout)
        if editor.status is not None:
            break
    await ctx.write(editor.stdout.take().encode("utf-8", "surrogateescape"))
    return status


async def _drive(ctx: Context, editor: Editor, source: Source, out: Sink) -> None:
    """Run the editor on one stream, writing standard output a batch at a time and letting
    Ctrl-C stop a loop."""
    for done, _ in enumerate(editor.run(source, out), 1):
        if editor.stdout.size >= BATCH:
            await ctx.write(editor.stdout.take().encode("utf-8", "surrogateescape"))
        await cancel.checkpoint("sed", done, 0, "steps")


async def _in_place(ctx: Context, editor: Editor, names: list[str], suffix: str,
                    separator: str) -> int:
    """-i: each FILE edited on its own and written back in one write."""
    status = 0
    for name in names:
        try:
            path = ctx.resolve(name)
            data = await ctx.vfs.read_file(path)
            assert isinstance(data, bytes)
        except OSError as exc:
            ctx.err(f"can't read {quote_name(name)}: {describe(exc)}")
            status = 2
            continue
        out = Sink(separator)
        text = data.decode("utf-8", "surrogateescape")
        await _drive(ctx, editor, Source(split_lines(text, name, separator)), out)
        try:
            if suffix:
                await ctx.vfs.write_file(_backup(path, suffix), data)
            await ctx.vfs.write_file(path, out.take().encode("utf-8", "surrogateescape"))
        except OSError as exc:
            ctx.err(f"couldn't edit {quote_name(name)}: {describe(exc)}")
            status = 4
        if editor.status is not None:
            break
    await ctx.write(editor.stdout.take().encode("utf-8", "surrogateescape"))
    return status


async def _read_files(ctx: Context, commands: list[Command]) -> dict[str, str | None]:
    """The files `r` and `R` read (one that cannot be read: nothing, as in GNU sed)."""
    files: dict[str, str | None] = {}
    for step in commands:
        if step.name in "rR" and step.text not in files:
            try:
                data = await ctx.vfs.read_file(ctx.resolve(step.text))
                assert isinstance(data, bytes)
                files[step.text] = data.decode("utf-8", "surrogateescape")
            except OSError:
                files[step.text] = None
    return files


async def _write_files(ctx: Context, editor: Editor) -> None:
    """What `w` wrote, into its files (each made even when nothing was written to it)."""
    for name, sink in editor.written.items():
        text = sink.take()
        if name == "/dev/stderr":
            ctx.stderr.write_nowait(text)
            continue
        try:
            await ctx.vfs.write_file(ctx.resolve(name),
                                     text.encode("utf-8", "surrogateescape"))
        except OSError as exc:
            ctx.err(f"couldn't open file {name}: {describe(exc)}")


def _backup_suffix(args: list[str]) -> tuple[list[str], str]:
    """GNU's optional argument of -i, glued to it (`-i.bak`, `-ni.bak`, `--in-place=.bak`),
    which getopt cannot read: the arguments with it cut off, and the suffix."""
    suffix, out, value_next = "", [], False
    for index, arg in enumerate(args):
        if arg == "--":
            return [*out, *args[index:]], suffix
        if value_next:
            value_next = False
        elif arg.startswith("--in-place="):
            suffix, arg = arg.partition("=")[2], "--in-place"
        elif arg.startswith("-") and not arg.startswith("--"):
            for at, letter in enumerate(arg[1:], start=1):
                if letter in "efl":  # the rest, or the next argument, is its value
                    value_next = at == len(arg) - 1
                    break
                if letter == "i":
                    suffix, arg = arg[at + 1:] or suffix, arg[:at + 1]
                    break
        out.append(arg)
    return out, suffix


def _backup(path: str, suffix: str) -> str:
    """Where sed -i keeps the original: PATH+SUFFIX, or with `*` in SUFFIX, SUFFIX with the
    file's name in place of `*`, in the file's directory."""
    if "*" not in suffix:
        return path + suffix
    directory, name = posixpath.split(path)
    return posixpath.join(directory, suffix.replace("*", name))
