"""Commands about the session rather than the files: help, open, clear."""

from __future__ import annotations

from ...core import paths
from ...hosts.preview import url_inside
from ..context import Context, each_operand
from ..format import quote_name
from .registry import COMMANDS, command, parse_flags, require_operands

HELP_FOOTER = """\
Between commands: a | b, a && b, a || b, a ; b, ! a, ( subshell ), { group; }.
Control: if/then/elif/else/fi, for/while/until ... do ... done, case ... esac, f() { ...; }.
Words: $VAR ${VAR:-default} $(cmd) $((1 + 2)) {a,b} {1..5} ~ * ? [abc] **.
Redirections: < FILE, > FILE, >> FILE, 2> FILE, 2>&1, &> FILE, <<EOF, <<< WORD.
Quoting: 'literal', "with $VAR and \\" escapes", $'\\n', \\x. Reference: docs/shell.md.
"""


@command("help", "list the commands")
async def help_(ctx: Context, args: list[str]) -> int:
    """Print every command's usage line and summary, then the syntax reminder."""
    width = max(len(spec.usage) for spec in COMMANDS.values())
    for name in sorted(COMMANDS):
        spec = COMMANDS[name]
        ctx.out(f"  {spec.usage:<{width}}  {spec.summary}\n")
    ctx.out(HELP_FOOTER)
    return 0


@command("open PATH...", "show files in the preview (each PATH alone: a file, or a folder)")
async def open_(ctx: Context, args: list[str]) -> int:
    """Mint a preview root per operand and hand its URL to the page."""
    _, operands = parse_flags(args, "")
    require_operands(operands)

    async def show(name: str) -> None:
        path = ctx.resolve(name)
        # The preview root is PATH itself: a folder serves what is below it (its URL ends in
        # "/", so relative links resolve), a file only itself, under its own name.
        previews = ctx.session.previews
        if ctx.vfs.stat(path).is_dir:
            url = await previews.root_url(path, "folder")
        else:
            url = url_inside(await previews.root_url(path, "file"), paths.basename(path))
        ctx.open_urls.append(url)
        ctx.out(f"{quote_name(name)} -> {url}\n")

    return await each_operand(ctx, operands, show, "{name}")


@command("clear", "clear the terminal")
async def clear(ctx: Context, args: list[str]) -> int:
    """Write the xterm sequence that homes the cursor and erases the screen."""
    parse_flags(args, "")
    ctx.out("\x1b[H\x1b[2J")  # what `clear` writes on an xterm; the terminal interprets it
    return 0
