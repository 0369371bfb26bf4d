"""``python -m py_vfs shell --disk FILE [--defaults DIR] [-c COMMAND]``: the shell on a one-file
SQLite disk; ``--defaults DIR``: the default content (py_vfs/defaults.py) installed when the disk
lacks its version, and what ``reset --defaults`` puts back. The wheel installs the same command
line as the console command ``py-vfs`` (pyproject.toml, ``[project.scripts]``):
``py-vfs shell --disk my.db``; ``--version`` prints the package's version."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from . import __version__
from .defaults import Bundle, install
from .shell import Shell
from .shell.complete import complete
from .shell.format import shown_name
from .shell.history_file import History, HistoryError, history_of
from .shell.parser import needs_more
from .storage.sqlite import SQLiteStore
from .vfs import VFS


def main(argv: list[str] | None = None) -> int:
    """The command line: ``python -m py_vfs shell --disk FILE`` (or ``py-vfs shell ...``);
    returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["dock"]:  # the server (docs/dock.md): needs the py_vfs[dock] extra
        try:
            from .dock.server.run import main as dock_main
        except ImportError as error:
            print(f"dock: {error}: install py_vfs[dock]", file=sys.stderr)
            return 2
        return dock_main(argv[1:], _prog())
    parser = argparse.ArgumentParser(prog=_prog(), description="py_vfs, a durable POSIX-like "
                                     "virtual file system: its shell on a SQLite disk file")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    shell = commands.add_parser("shell", help="run the py_vfs shell on a disk file")
    shell.add_argument("--disk", metavar="FILE", required=True,
                       help="the SQLite file holding the disk (created when missing)")
    shell.add_argument("--defaults", metavar="DIR", help="a folder of default content, each "
                       "file at its path below / (installed when the disk lacks its version)")
    shell.add_argument("--dock", metavar="URL", help="sync the disk with the dock at URL "
                       "(docs/dock.md)")
    shell.add_argument("--token", metavar="T", help="the dock's token for this disk (default: "
                       "$PYVFS_DOCK_TOKEN)")
    shell.add_argument("--disk-name", metavar="NAME", help="the disk's name on the dock "
                       "(default: the one the token reaches)")
    shell.add_argument("-c", dest="line", metavar="COMMAND",
                       help="run one command line and exit with its status")
    args = parser.parse_args(argv)
    bundle = None if args.defaults is None else Bundle.from_folder(args.defaults)
    dock = None
    if args.dock is not None:
        token = args.token or os.environ.get("PYVFS_DOCK_TOKEN")
        if not token:
            parser.error("--dock needs --token (or PYVFS_DOCK_TOKEN)")
        dock = (args.dock, token, args.disk_name)
    return asyncio.run(_shell(args.disk, args.line, bundle, dock))


def _prog() -> str:
    """How this process was called: ``py-vfs`` (the console command) or ``python -m py_vfs``."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "python -m py_vfs" if name in ("", "-c", "__main__.py") else name


async def _shell(disk: str, line: str | None, bundle: Bundle | None = None,
                 dock: tuple[str, str, str | None] | None = None) -> int:
    vfs = await VFS.open(SQLiteStore(disk))
    attached = None
    try:
        if dock is not None:
            attached = await _attach(vfs, *dock)
        await vfs.gc()
        if bundle is not None:
            await install(vfs, bundle)
        # The user's own terminal: host folders allowed.
        session = Shell(vfs, host_mounts=True, defaults=bundle)
        if line is not None:
            return await _run(session, line)
        return await _interact(session)
    finally:
        if attached is not None:
            await attached.detach()
        vfs.close()


async def _attach(vfs: VFS, url: str, token: str, name: str | None) -> Any:
    """Sync with a dock: at once, in the background while the shell runs (the dock's live
    channel), and once more at exit (``detach``)."""
    from .dock.replica import attach

    replica = await attach(vfs, url, token, disk=name)
    status = replica.status()
    if status["state"] != "synced":
        print(f"dock: {status['state']}{': ' + status['error'] if status.get('error') else ''}",
              file=sys.stderr)
    return replica


async def _run(session: Shell, line: str, ask: bool = False) -> int:
    """Run one line; ``ask``: a command that wants confirmation asks y/N (else it says how to
    confirm, and fails)."""
    result = await session.run(line)
    sys.stdout.write(result.stdout)
    if ask and result.confirm is not None:
        if input("Proceed? [y/N] ").strip().lower() in ("y", "yes"):
            return await _run(session, result.confirm)
        print("cancelled")
        return result.code
    sys.stderr.write(result.stderr)
    return result.code


async def _interact(session: Shell) -> int:
    """A read-eval-print loop; ``readline`` (when present) gives line editing, the history of
    ``~/.history`` on the disk and Tab completion (py_vfs/shell/complete.py); ``!`` events
    are expanded and each line is recorded, as in the page's terminal; the lines not yet in the
    history file are written at exit."""
    history = history_of(session)
    await history.ensure_loaded()
    try:
        return await _read_eval_print(session, history)
    finally:
        await history.flush()


async def _read_eval_print(session: Shell, history: History) -> int:
    edit = _readline(session)
    code = 0
    while True:
        try:
            line = input(f"py_vfs:{shown_name(session.cwd)}$ ")
        except EOFError:
            print()
            return code
        except KeyboardInterrupt:
            print("^C")
            continue
        while needs_more(line, session.aliases):  # an open quote, `if` without `fi`...: read on
            try:
                line += "\n" + input("> ")
            except EOFError:
                break
        try:
            expanded = history.expand(line)
        except HistoryError as error:
            print(f"sh: {error}", file=sys.stderr)
            code = 1
            continue
        if expanded != line:
            print(expanded)
        recorded = len(history.entries)
        await history.add(expanded)
        if edit is not None and len(history.entries) > recorded:
            edit.add_history(expanded)
        if expanded.strip() in ("exit", "logout"):
            return code
        code = await _run(session, expanded, ask=True)


def _readline(session: Shell) -> Any:
    """Set up readline with the shell's history and completion; None where it is missing."""
    try:
        import readline
    except ImportError:
        return None
    readline.set_auto_history(False)  # the shell records the expanded lines itself
    for entry in history_of(session).entries:
        readline.add_history(entry)
    found: list[str] = []

    def completer(text: str, state: int) -> str | None:
        if state == 0:
            line, cursor = readline.get_line_buffer(), readline.get_endidx()
            completion = complete(session, line, cursor)
            # readline replaces its own word (from begidx): keep what lies before ours.
            keep = line[readline.get_begidx():completion.start]
            # readline adds its own space after a unique match.
            found[:] = [keep + (candidate[:-1] if candidate.endswith(" ")
                                and not candidate.endswith("\\ ") else candidate)
                        for candidate in completion.candidates]
        return found[state] if state < len(found) else None

    readline.set_completer_delims(" \t\n|&;<>()")
    readline.set_completer(completer)
    readline.parse_and_bind("tab: complete")
    return readline


if __name__ == "__main__":
    sys.exit(main())
