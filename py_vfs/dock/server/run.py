"""``python -m py_vfs dock``: run a dock, and manage its tokens (docs/dock.md).

    python -m py_vfs dock [--data DIR] [--database URL] [--host 127.0.0.1] [--port N]
                          [--allow-origin ORIGIN]...
    python -m py_vfs dock token --disk NAME [--read-only] [--path /scoops/x]
                                [--data DIR | --database URL]
    python -m py_vfs dock token list [--data DIR | --database URL]
    python -m py_vfs dock token revoke ID [--data DIR | --database URL]

The server prints ``dock: http://HOST:PORT/`` once it answers (with ``--port 0``, the port the
system chose).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
from urllib.parse import urlsplit

from ...core import paths
from ..wire import Invalid, check_disk
from .app import make_app, token_hash
from .db import Database


def _where(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", metavar="DIR", default="dock-data",
                        help="where the default store keeps its SQLite file and chunks "
                        "(default: ./dock-data)")
    parser.add_argument("--database", metavar="URL",
                        help="postgresql://... to keep everything in Postgres instead")


def main(argv: list[str], prog: str) -> int:
    """The ``dock`` command line; returns the exit status."""
    if argv[:1] == ["token"]:
        return _token(argv[1:], prog)
    parser = argparse.ArgumentParser(prog=f"{prog} dock", description="run a dock: the server "
                                     "every replica of a disk syncs with (docs/dock.md)")
    _where(parser)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--delete-share", type=float, default=0.5, metavar="SHARE",
                        help="a push deleting more than this share of a disk is held for "
                        "confirmation (default 0.5)")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                        help="a web page's origin (https://app.example) whose browser replicas "
                        "may call this dock (CORS); repeatable; default: none")
    args = parser.parse_args(argv)
    origins = [_origin(parser, origin) for origin in args.allow_origin]
    database = Database(args.data, args.database)
    try:
        return asyncio.run(_serve(database, args.host, args.port, args.delete_share, origins))
    except KeyboardInterrupt:
        return 0
    finally:
        database.close()


def _origin(parser: argparse.ArgumentParser, origin: str) -> str:
    """An origin as a browser sends it: scheme, host and port, no path."""
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/") \
            or parts.query or parts.fragment:
        parser.error(f"--allow-origin {origin!r} is not an origin (https://host[:port])")
    return f"{parts.scheme}://{parts.netloc}"


async def _serve(database: Database, host: str, port: int, share: float,
                 origins: list[str]) -> int:
    import uvicorn

    app = make_app(database, delete_share=share, allow_origins=origins)
    config = uvicorn.Config(app, host=host, port=port,
                            log_level="warning", lifespan="off", timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            return 1 if task.exception() is None else _failed(task.exception())
        await asyncio.sleep(0.02)
    bound = server.servers[0].sockets[0].getsockname()[1] if server.servers else port
    shown = f"[{host}]" if ":" in host else host
    print(f"dock: http://{shown}:{bound}/", flush=True)
    await task
    return 0


def _failed(error: BaseException | None) -> int:
    print(f"dock: {error}", file=sys.stderr)
    return 1


def _token(argv: list[str], prog: str) -> int:
    parser = argparse.ArgumentParser(prog=f"{prog} dock token",
                                     description="make, list or revoke the dock's tokens")
    _where(parser)
    parser.add_argument("action", nargs="?", choices=["list", "revoke"],
                        help="list the tokens, or revoke one by its id (default: make one)")
    parser.add_argument("id", nargs="?", help="the token to revoke (its id, from list)")
    parser.add_argument("--disk", help="the disk the new token reaches")
    parser.add_argument("--read-only", action="store_true", help="it may pull, never push")
    parser.add_argument("--path", help="it reaches only this folder of the disk")
    args = parser.parse_args(argv)
    database = Database(args.data, args.database)
    try:
        if args.action == "list":
            for row in database.tokens():
                print(json.dumps(row))
            return 0
        if args.action == "revoke":
            if not args.id:
                parser.error("revoke needs the id of a token (see: token list)")
            if not database.revoke(args.id):
                print(f"no live token {args.id}", file=sys.stderr)
                return 1
            print(f"revoked {args.id}")
            return 0
        if not args.disk:
            parser.error("--disk NAME is needed to make a token")
        try:
            check_disk(args.disk)
            path = paths.normalize(args.path) if args.path else None
        except (Invalid, Exception) as error:
            parser.error(str(error))
        token = "pvd_" + secrets.token_urlsafe(32)
        database.add_token(args.disk, token_hash(token), args.read_only, path)
        print(token)
        return 0
    finally:
        database.close()
