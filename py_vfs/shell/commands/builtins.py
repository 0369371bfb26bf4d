"""Commands about the session rather than the files: help, pwd, cd, open, clear, true, false."""

from __future__ import annotations

from py_vfs import paths
from py_vfs.preview import url_inside
from py_vfs.shell.commands.registry import COMMANDS, command, parse_flags, require_operands
from py_vfs.shell.context import HOME, Context, describe, each_operand
from py_vfs.shell.format import quote_name, visible

HELP_FOOTER = """\
Between commands: a && b (b if a succeeded), a || b (b if a failed), a ; b.
Output to a file: cmd > FILE, cmd >> FILE (append), 2> FILE, 2>&1.
Quoting: 'literal', "with \\" escapes", \\x. Globs: * ? [abc].
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


@command("pwd", "print the current directory")
async def pwd(ctx: Context, args: list[str]) -> int:
    """Print the current directory (the logical path `cd` kept)."""
    parse_flags(args, "")
    ctx.out(f"{visible(ctx.cwd)}\n")
    return 0


@command("cd [DIR]", "change the current directory (no DIR: /)")
async def cd(ctx: Context, args: list[str]) -> int:
    """Change the current directory; no operand goes to HOME ("/")."""
    _, operands = parse_flags(args, "")
    if len(operands) > 1:
        ctx.err("too many arguments")
        return 1
    name = operands[0] if operands else HOME
    try:
        path = ctx.resolve(name)
        node = ctx.vfs.stat(path)
    except OSError as exc:
        ctx.err(f"{quote_name(name)}: {describe(exc)}")
        return 1
    if node.type != "directory":
        ctx.err(f"{quote_name(name)}: Not a directory")
        return 1
    # The logical path, as sh keeps it: `cd link/..` returns to where the link is.
    ctx.session.cwd = path
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


@command("true", "do nothing, successfully")
async def true(ctx: Context, args: list[str]) -> int:
    """Exit 0."""
    return 0


@command("false", "do nothing, unsuccessfully")
async def false(ctx: Context, args: list[str]) -> int:
    """Exit 1."""
    return 1
