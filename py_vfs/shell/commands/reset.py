"""``reset --defaults``: put the shipped default content back (py_vfs/defaults.py), after the
user confirms: a terminal asks y/N, ``-y``/``--yes`` skips asking (for scripts)."""

from __future__ import annotations

from ...defaults import reset
from ..context import Context
from ..format import quote_arg, quote_name
from .registry import UsageError, command

CONFIRMED = "reset --defaults --yes"


@command("reset --defaults [-y|--yes]",
         "put the shipped default content back, replacing changes to it (asks first)")
async def reset_command(ctx: Context, args: list[str]) -> int:
    """Re-copy every shipped default file (a changed one replaced, a deleted one made again);
    other files are not touched. Without ``--yes`` it only says what it would do and asks."""
    for arg in args:
        if arg not in ("--defaults", "-y", "--yes"):
            raise UsageError(f"unrecognized option {quote_arg(arg)}")
    if "--defaults" not in args:
        raise UsageError("say what to reset: reset --defaults")
    bundle = ctx.session.defaults
    if ctx.session.scoop_name is not None:  # the defaults lie outside a scoop's view
        ctx.err("a scoop cannot reset the disk's default content: `exit` the scoop first")
        return 1
    if bundle is None:
        ctx.err("no default content is shipped with this disk")
        return 1
    if "-y" not in args and "--yes" not in args:
        ctx.out(f"This puts back the {len(bundle.files)} files of the default content "
                f"(version {bundle.version}) as shipped, replacing your changes to them:\n")
        for path in sorted(bundle.files):
            ctx.out(f"  {quote_name(path)}\n")
        ctx.out("Your other files are not touched.\n")
        ctx.confirm.append(CONFIRMED)
        ctx.err(f"not done: confirm, or run {quote_arg(CONFIRMED)}")
        return 1
    report = await reset(ctx.vfs, bundle)
    for path in report["written"]:
        ctx.out(f"restored {quote_name(path)}\n")
    for path in report["kept"]:
        ctx.out(f"kept {quote_name(path)} (not a file of the disk: left as it is)\n")
    ctx.out(f"default content {report['version']}: restored {len(report['written'])} of "
            f"{len(bundle.files)} files\n")
    return 0
