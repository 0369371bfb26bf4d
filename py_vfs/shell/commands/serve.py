"""`serve`: a folder of the VFS as a site in the preview, opened at its entry page; the folder
is the preview root, so "/" in the site's URLs means DIR."""

from __future__ import annotations

import posixpath

from ...hosts.preview import url_inside
from ..context import Context, describe
from ..format import quote_arg, quote_name
from .registry import UsageError, command

DEFAULT_ENTRY = "index.html"


@command("serve [--entry FILE] [DIR]",
         "open DIR (default: .) in the preview at its entry page (default: index.html)")
async def serve(ctx: Context, args: list[str]) -> int:
    """Open DIR as a site in the preview at its entry page."""
    entry, operands = parse_serve_args(args)
    if len(operands) > 1:
        raise UsageError(f"extra operand {quote_arg(operands[1])}")
    refusal = entry_refusal(entry)
    if refusal:
        raise UsageError(refusal)
    name = operands[0] if operands else "."
    directory = ctx.resolve(name)
    try:
        if not ctx.vfs.stat(directory).is_dir:
            ctx.err(f"{quote_name(name)}: Not a directory")
            return 1
    except OSError as exc:
        ctx.err(f"{quote_name(name)}: {describe(exc)}")
        return 1
    page = posixpath.join(directory, entry)
    if not ctx.vfs.exists(page):
        hint = "" if entry != DEFAULT_ENTRY else " (choose another with --entry FILE)"
        ctx.err(f"no {quote_name(entry)} in {quote_name(directory)}{hint}")
        return 1
    url = url_inside(await ctx.session.previews.root_url(directory, "folder"), entry)
    ctx.open_urls.append(url)
    ctx.out(f"Serving {quote_name(directory)} at {url}\n")
    return 0


def parse_serve_args(args: list[str]) -> tuple[str, list[str]]:
    """``--entry FILE`` or ``--entry=FILE`` anywhere, ``--`` ends the options; nothing else is
    an option, so a mistyped one stops the command instead of being taken for DIR."""
    entry = DEFAULT_ENTRY
    operands: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            operands.extend(rest)
        elif arg == "--entry":
            entry = next(rest, None) or ""
            if not entry:
                raise UsageError("option '--entry' requires an argument")
        elif arg.startswith("--entry="):
            entry = arg.removeprefix("--entry=")
        elif arg.startswith("-") and arg != "-":
            raise UsageError(f"unrecognized option {quote_arg(arg)}")
        else:
            operands.append(arg)
    return entry, operands


def entry_refusal(entry: str) -> str | None:
    """Why an entry is refused: it must name a file inside DIR, so the preview opens within the
    folder being served."""
    if not entry:
        return "the entry must not be empty"
    if entry.startswith("/"):
        return f"--entry {quote_arg(entry)}: must be relative to DIR, not absolute"
    if ".." in entry.split("/"):
        return f"--entry {quote_arg(entry)}: must stay inside DIR ('..' is not allowed)"
    return None
