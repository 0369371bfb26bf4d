"""awk's input and output: records read a piece at a time under RS, and the streams `print`
and `getline` redirect to (files on the VFS, commands run by our shell, standard output).

RS: one character (a newline by default), "" (paragraphs: records end at blank lines, leading
newlines skipped), or longer: an ERE, as in gawk. A record is at most ``MAX_RECORD`` characters
(``check_value``). `print > FILE` truncates FILE when it is first opened and appends after,
until close(); `>>` appends. `print | CMD` collects what is printed and runs CMD in a subshell of
our shell when the pipe is closed (close(), or the program's end); `CMD | getline` runs CMD at
once and reads its output. Special names: `-` and `/dev/stdout`, `/dev/stderr`.
"""

from __future__ import annotations

import codecs
from collections.abc import Awaitable, Callable

from ..context import Context, describe, ensure_parent_dir
from ..limits import budget, check_value
from ..pipes import BytesInput, Collect, Input, NoInput, Output, StreamInput
from .awk_regex import compile_ere
from .awk_values import AwkError

FLUSH_AT = 1 << 16  # characters of buffered output written out at once
_PARAGRAPH_END = "\n\n"


class RecordReader:
    """Records of one input, read as they are needed (so `yes | awk 'NR==3{exit}'` ends)."""

    def __init__(self, source: Input) -> None:
        self.source = source
        self.buffer = ""
        self.at = 0
        self.eof = False
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")

    async def _more(self) -> bool:
        if self.eof:
            return False
        chunk = await self.source.read()
        if self.at > FLUSH_AT:
            self.buffer, self.at = self.buffer[self.at:], 0
        if not chunk:
            self.eof = True
            self.buffer += self._decoder.decode(b"", final=True)
            return False
        self.buffer += self._decoder.decode(chunk)
        check_value("awk record", len(self.buffer) - self.at)
        return True

    async def read(self, rs: str) -> tuple[str, str] | None:
        """The next record and the text that ended it (gawk's RT), or None at the end."""
        if rs == "":
            return await self._paragraph()
        if len(rs) == 1:
            while True:
                end = self.buffer.find(rs, self.at)
                if end >= 0:
                    record, self.at = self.buffer[self.at:end], end + 1
                    return record, rs
                if not await self._more():
                    return self._rest()
        regex = compile_ere(rs)
        while True:
            found = regex.find(self.buffer, self.at)
            while found is not None and found[0] == found[1]:
                found = regex.find(self.buffer, found[0] + 1) if found[0] < len(self.buffer) \
                    else None
            if found is not None and (found[1] < len(self.buffer) or self.eof):
                record = self.buffer[self.at:found[0]]
                self.at = found[1]
                return record, self.buffer[found[0]:found[1]]
            if not await self._more():
                if found is not None:
                    continue
                return self._rest()

    def _rest(self) -> tuple[str, str] | None:
        if self.at >= len(self.buffer):
            return None
        record, self.at = self.buffer[self.at:], len(self.buffer)
        return record, ""

    async def _paragraph(self) -> tuple[str, str] | None:
        while True:
            while self.at < len(self.buffer) and self.buffer[self.at] == "\n":
                self.at += 1
            if self.at < len(self.buffer) or not await self._more():
                break
        while True:
            end = self.buffer.find(_PARAGRAPH_END, self.at)
            if end >= 0:
                stop = end
                while stop < len(self.buffer) and self.buffer[stop] == "\n":
                    stop += 1
                if stop < len(self.buffer) or self.eof:
                    record = self.buffer[self.at:end]
                    separator, self.at = self.buffer[end:stop], stop
                    return record, separator
            if not await self._more():
                if end >= 0:
                    continue
                rest = self._rest()
                if rest is None:
                    return None
                text = rest[0].rstrip("\n")
                return text, rest[0][len(text):]


RunShell = Callable[[str, Input, Output], Awaitable[int]]


class _Stream:
    def __init__(self, kind: str, name: str) -> None:
        self.kind = kind  # ">", ">>", "|", "<" (a file read) or "|<" (a command read)
        self.name = name
        self.parts: list[str] = []
        self.size = 0
        self.written = False
        self.reader: RecordReader | None = None
        self.status = 0


class Streams:
    """Standard output (buffered), and the files and commands a program has open."""

    def __init__(self, ctx: Context, run_shell: RunShell) -> None:
        self.ctx = ctx
        self.run_shell = run_shell
        self.out: list[str] = []
        self.out_size = 0
        self.open: dict[str, _Stream] = {}
        self.stdin: Input = NoInput()  # what `getline < "-"` reads

    async def flush(self) -> None:
        """Write what was printed to standard output so far."""
        if self.out:
            text, self.out, self.out_size = "".join(self.out), [], 0
            await self.ctx.write(text.encode("utf-8", "surrogateescape"))

    async def print(self, text: str, redirect: str | None, target: str) -> None:
        """Print ``text`` to standard output, or ``> >> |`` ``target``."""
        if redirect is None or (redirect != "|" and target in ("-", "/dev/stdout")):
            self.out.append(text)
            self.out_size += len(text)
            if self.out_size >= FLUSH_AT:
                await self.flush()
            return
        if redirect != "|" and target == "/dev/stderr":
            await self.flush()
            self.ctx.stderr.write_nowait(text.encode("utf-8", "surrogateescape"))
            return
        if target == "/dev/null" and redirect != "|":
            return
        if target == "":
            raise AwkError(f"fatal: expression for `{redirect}' redirection has null string value")
        stream = self.open.get(target)
        if stream is None or stream.kind in ("<", "|<"):
            if redirect == "|":
                await self.flush()  # as gawk, which flushes before it starts the command
            stream = self.open[target] = _Stream(redirect, target)
        stream.parts.append(text)
        stream.size += len(text)
        if stream.kind == "|":
            check_value("awk pipe", stream.size)
        elif stream.size >= FLUSH_AT:
            await self._write_file(stream)

    async def _write_file(self, stream: _Stream) -> None:
        data = "".join(stream.parts).encode("utf-8", "surrogateescape")
        stream.parts, stream.size = [], 0
        path = self.ctx.resolve(stream.name)
        try:
            ensure_parent_dir(self.ctx.vfs, path)
            if stream.kind == ">" and not stream.written:
                await self.ctx.vfs.write_file(path, data)
            else:
                await self.ctx.vfs.append_file(path, data)
        except OSError as exc:
            raise AwkError(f"fatal: cannot redirect to `{stream.name}': {describe(exc)}") from None
        stream.written = True

    async def reader(self, name: str, command: bool, stdin: Input) -> RecordReader | None:
        """The reader of `getline < name` or `name | getline` (opened on first use); None
        when the file cannot be read."""
        stream = self.open.get(name)
        if stream is not None and stream.reader is not None:
            return stream.reader
        stream = _Stream("|<" if command else "<", name)
        if command:
            await self.flush()
            collected = Collect()
            stream.status = await self.run_shell(name, NoInput(), collected)
            source: Input = BytesInput(collected.take())
        elif name in ("-", "/dev/stdin"):
            source = stdin
        elif name == "/dev/null":
            source = NoInput()
        else:
            try:
                source = StreamInput(self.ctx.vfs.open_read(self.ctx.resolve(name)))
                await source.read(0)
            except OSError:
                return None
        stream.reader = RecordReader(source)
        self.open[name] = stream
        return stream.reader

    async def close(self, name: str) -> int:
        """close(name): flush and forget the stream; a command's exit status, 0, or -1 when
        nothing of that name is open."""
        stream = self.open.pop(name, None)
        if stream is None:
            return -1
        if stream.kind == "|":
            data = "".join(stream.parts).encode("utf-8", "surrogateescape")
            return await self.run_shell(name, BytesInput(data), self.ctx.stdout)
        if stream.kind in (">", ">>"):
            await self._write_file(stream)
        return stream.status

    async def close_all(self) -> None:
        """At the program's end: every open stream, then standard output (gawk's order)."""
        for name in list(self.open):
            await self.close(name)
        await self.flush()


async def run_command(ctx: Context, line: str, stdin: Input, stdout: Output) -> int:
    """Run ``line`` in a subshell of our shell (`system`, `print | cmd`, `cmd | getline`)."""
    if not line.strip():
        return 0
    budget().command()
    return await ctx.session.run_here(f"(\n{line}\n)", None, stdin, stdout, ctx.stderr)
