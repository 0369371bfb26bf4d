"""``python -m py_vfs shell --disk FILE [-c COMMAND]``: the shell on a one-file SQLite disk."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys

from .shell import Shell
from .storage.sqlite import SQLiteStore
from .vfs import VFS


def main(argv: list[str] | None = None) -> int:
    """The command line: ``python -m py_vfs shell [--disk FILE]``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m py_vfs")
    commands = parser.add_subparsers(dest="command", required=True)
    shell = commands.add_parser("shell", help="run the py_vfs shell on a disk file")
    shell.add_argument("--disk", required=True, help="the SQLite file holding the disk "
                       "(created when missing)")
    shell.add_argument("-c", dest="line", help="run one command line and exit with its status")
    args = parser.parse_args(argv)
    return asyncio.run(_shell(args.disk, args.line))


async def _shell(disk: str, line: str | None) -> int:
    vfs = await VFS.open(SQLiteStore(disk))
    try:
        await vfs.gc()
        session = Shell(vfs, host_mounts=True)  # the user's own terminal: host folders allowed
        if line is not None:
            return await _run(session, line)
        return await _interact(session)
    finally:
        vfs.close()


async def _run(session: Shell, line: str) -> int:
    result = await session.run(line)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    return result.code


async def _interact(session: Shell) -> int:
    """A read-eval-print loop; ``readline`` (when present) gives line editing and history."""
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401
    code = 0
    while True:
        try:
            line = input(f"py_vfs:{session.cwd}$ ")
        except EOFError:
            print()
            return code
        except KeyboardInterrupt:
            print("^C")
            continue
        if line.strip() in ("exit", "logout"):
            return code
        code = await _run(session, line)


if __name__ == "__main__":
    sys.exit(main())
