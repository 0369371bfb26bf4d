"""xargs: run a command with arguments read from standard input (through ``ctx.run``)."""

from __future__ import annotations

from ...core import cancel
from ..context import Context
from ..format import quote_arg, shown_name
from .gnu import getopts, number
from .registry import GNU, UsageError, command

NOT_FOUND = 127


def split_items(text: str) -> list[str]:
    """GNU xargs' default input: words separated by blanks and newlines, with '...' and "..."
    quoting and backslash escapes."""
    items: list[str] = []
    word: list[str] = []
    in_word = False
    quote = ""
    chars = iter(text)
    for char in chars:
        if quote:
            if char == quote:
                quote = ""
            elif char == "\n":
                break
            else:
                word.append(char)
        elif char in " \t\n":
            if in_word:
                items.append("".join(word))
            word, in_word = [], False
        else:
            in_word = True
            if char in "'\"":
                quote = char
            elif char == "\\":
                word.append(next(chars, ""))
            else:
                word.append(char)
    if quote:
        kind = "single" if quote == "'" else "double"
        raise UsageError(f"unmatched {kind} quote; by default quotes are special to xargs "
                      "unless you use the -0 option", try_line=False)
    if in_word:
        items.append("".join(word))
    return items


@command("xargs [OPTION]... [COMMAND [ARG...]]",
         "run COMMAND with arguments read from standard input", errors=GNU)
async def xargs(ctx: Context, args: list[str]) -> int:
    """Read items from standard input (words separated by blanks, with quotes and backslashes
    as GNU xargs; -0: separated by NUL; -d DELIM: by DELIM) and run COMMAND (default echo)
    with the initial ARGs followed by as many items as fit, or N at a time (-n N). -I STR:
    once per input line, with STR in the ARGs replaced by the line. -r: do not run COMMAND
    when there is no item; -t: print each command line on standard error first. Status 0, or
    123 when a command failed, 127 when COMMAND is not found (as GNU xargs)."""
    # Options end at the command: `xargs grep -n x` passes -n to grep.
    cut = 0
    while cut < len(args) and args[cut].startswith("-") and args[cut] != "-":
        if args[cut] == "--":
            break
        cut += 2 if args[cut] in ("-n", "-I", "-d") else 1
    options, _ = getopts(args[:cut], "0n:I:d:rt", ("null", "max-args=", "replace=",
                                                     "delimiter=", "no-run-if-empty",
                                                     "verbose"))
    command_line = args[cut + (cut < len(args) and args[cut] == "--"):] or ["echo"]
    per_call, replace, delimiter, skip_empty, trace = 0, None, None, False, False
    for flag, value in options:
        if flag in ("-0", "--null"):
            delimiter = "\0"
        elif flag in ("-n", "--max-args"):
            per_call = number(value, "value for -n option") or 1
        elif flag in ("-I", "--replace"):
            replace = value
        elif flag in ("-d", "--delimiter"):
            delimiter = value.encode().decode("unicode_escape") if value else value
        elif flag in ("-r", "--no-run-if-empty"):
            skip_empty = True
        else:
            trace = True
    text = (await ctx.stdin.read_all()).decode("utf-8", "surrogateescape")
    if replace is not None:
        lines = [line.lstrip(" \t") for line in text.split("\n") if line.strip(" \t")]
        calls = [[arg.replace(replace, line) for arg in command_line] for line in lines]
    else:
        if delimiter is not None:
            items = text.split(delimiter)
            if items and items[-1] == "":
                items.pop()
        else:
            items = split_items(text)
        size = per_call or max(len(items), 1)
        calls = [command_line + items[i:i + size] for i in range(0, len(items), size)]
        if not calls and not skip_empty:
            calls = [list(command_line)]
    status = 0
    for done, argv in enumerate(calls):
        await cancel.checkpoint("xargs", done, len(calls), "commands")
        if trace:
            ctx.stderr.write_nowait(" ".join(map(shown_name, argv)) + "\n")
        code = await ctx.run(argv)
        if code == NOT_FOUND:
            return NOT_FOUND
        if code == 255:
            ctx.err(f"{quote_arg(argv[0])}: exited with status 255; aborting")
            return 124
        if code:
            status = 123
    return status

