"""The dock's HTTP API (Starlette), as docs/dock.md describes it.

Every route under ``/v1/disks/<disk>/`` wants ``Authorization: Bearer <token>``: none or an
unknown or revoked one is 401, a token of another disk 403, whether that disk exists or not (a
caller learns nothing about which disks exist). A body's size is checked against its route's
bound from ``Content-Length`` before a byte is read (413), and while it streams when the length
is not given. Anything a request holds that the protocol does not allow is a 400 with a
sentence; no 4xx changes anything.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ... import __version__
from ..wire import (
    MAX_CHUNK_BODY,
    MAX_ENTRIES,
    MAX_HASHES,
    MAX_JSON_BODY,
    MAX_PULL,
    PUSH_ID,
    Invalid,
    check_disk,
    check_entry,
    check_hash,
    parse_json,
)
from .db import Conflict, Database, Unavailable
from .scope import Forbidden, inside_path, visible_entry

EVENT_POLL_S = 0.25
KEEPALIVE_S = 15.0


class Refused(Exception):
    """A request answered with ``status`` and a sentence."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


def token_hash(token: str) -> str:
    """What the dock stores of a token: its sha256, never the token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def make_app(database: Database, *, delete_share: float = 0.5,
             allow_origins: Sequence[str] = ()) -> Starlette:
    """The dock's ASGI application over ``database``. ``allow_origins``: the web pages
    (``https://app.example``) whose browser replicas may call it (CORS); none by default."""

    async def call(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(function, *args, **kwargs)

    async def grant(request: Request, *, write: bool = False) -> dict[str, Any]:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Refused(401, "a bearer token is needed (Authorization: Bearer <token>)")
        found = await call(database.token, token_hash(token.strip()))
        if found is None:
            raise Refused(401, "this token is not valid (unknown or revoked)")
        disk = request.path_params["disk"]
        if found["disk"] != disk:
            raise Refused(403, "this token does not reach this disk")
        if write and found["readOnly"]:
            raise Refused(403, "this token is read-only: it cannot push")
        return found

    async def body(request: Request, limit: int) -> bytes:
        length = request.headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                raise Refused(400, "Content-Length is not a number")
            if int(length) > limit:
                raise Refused(413, f"the body is bigger than the {limit} bytes allowed here")
        parts, size = [], 0
        async for part in request.stream():
            size += len(part)
            if size > limit:
                raise Refused(413, f"the body is bigger than the {limit} bytes allowed here")
            parts.append(part)
        return b"".join(parts)

    async def json_body(request: Request) -> dict[str, Any]:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise Refused(415, "the body must be application/json")
        value = parse_json(await body(request, MAX_JSON_BODY))
        if not isinstance(value, dict):
            raise Invalid("the body is a JSON object")
        return value

    def route(handler: Callable[[Request], Awaitable[Response]]) -> Callable[..., Any]:
        async def answer(request: Request) -> Response:
            try:
                check_disk(request.path_params.get("disk", "x"))
                return await handler(request)
            except Refused as refused:
                return JSONResponse({"error": refused.message, **refused.extra},
                                    status_code=refused.status)
            except Forbidden as forbidden:
                return JSONResponse({"error": str(forbidden)}, status_code=403)
            except Invalid as invalid:
                return JSONResponse({"error": str(invalid)}, status_code=400)
            except Conflict as conflict:
                return JSONResponse(conflict.body, status_code=409)
            except Unavailable as error:
                return JSONResponse({"error": f"the database is not available: {error}"},
                                    status_code=503, headers={"Retry-After": "1"})
        return answer

    async def hello(request: Request) -> Response:
        return JSONResponse({"dock": "py_vfs", "version": __version__, "api": "v1"})

    async def whoami(request: Request) -> Response:
        try:
            header = request.headers.get("authorization", "")
            scheme, _, token = header.partition(" ")
            found = await call(database.token, token_hash(token.strip())) \
                if scheme.lower() == "bearer" and token.strip() else None
        except Unavailable as error:
            return JSONResponse({"error": f"the database is not available: {error}"},
                                status_code=503, headers={"Retry-After": "1"})
        if found is None:
            return JSONResponse({"error": "a valid bearer token is needed"}, status_code=401)
        return JSONResponse({"disk": found["disk"], "readOnly": found["readOnly"],
                             "path": found["path"]})

    @route
    async def head(request: Request) -> Response:
        await grant(request)
        return JSONResponse({"head": await call(database.head, request.path_params["disk"])})

    @route
    async def log(request: Request) -> Response:
        grant_ = await grant(request)
        after = _number(request.query_params.get("after", "0"), "after")
        limit = min(_number(request.query_params.get("limit", str(MAX_PULL)), "limit"),
                    MAX_PULL) or 1
        current, rows = await call(database.log, request.path_params["disk"], after, limit)
        entries = []
        for rev, text in rows:
            entry = json.loads(text)
            if grant_["path"]:
                entry = await call(visible_entry, database, grant_["disk"], entry,
                                   grant_["path"])
            entries.append({"rev": rev, "entry": entry})
        last = rows[-1][0] if rows else after
        return JSONResponse({"head": current, "entries": entries, "more": last < current})

    @route
    async def missing(request: Request) -> Response:
        await grant(request)
        value = await json_body(request)
        hashes = value.get("hashes")
        if not isinstance(hashes, list) or len(hashes) > MAX_HASHES:
            raise Invalid(f"hashes is a list of at most {MAX_HASHES} sha256")
        wanted = sorted({check_hash(h) for h in hashes})
        have = await call(database.has_chunks, request.path_params["disk"], wanted)
        return JSONResponse({"missing": [h for h in wanted if h not in have]})

    @route
    async def put_chunk(request: Request) -> Response:
        await grant(request, write=True)
        key = check_hash(request.path_params["hash"])
        data = await body(request, MAX_CHUNK_BODY)
        if hashlib.sha256(data).hexdigest() != key:
            raise Refused(400, "the chunk's bytes do not match its sha256: nothing kept")
        await call(database.put_chunk, request.path_params["disk"], key, data)
        return JSONResponse({"stored": key}, status_code=201)

    @route
    async def get_chunk(request: Request) -> Response:
        await grant(request)
        key = check_hash(request.path_params["hash"])
        data = await call(database.get_chunk, request.path_params["disk"], key)
        if data is None:
            raise Refused(404, "no such chunk on this disk")
        return Response(data, media_type="application/octet-stream",
                        headers={"ETag": f'"{key}"', "Cache-Control": "immutable"})

    @route
    async def push(request: Request) -> Response:
        grant_ = await grant(request, write=True)
        value = await json_body(request)
        push_id, base, entries = value.get("push"), value.get("base"), value.get("entries")
        if not isinstance(push_id, str) or not PUSH_ID.match(push_id):
            raise Invalid("push is the client's id of this push (1 to 128 of A-Z a-z 0-9 _.:-)")
        if isinstance(base, bool) or not isinstance(base, int) or base < 0:
            raise Invalid("base is the dock revision the entries were made on")
        if not isinstance(entries, list) or not 0 < len(entries) <= MAX_ENTRIES:
            raise Invalid(f"entries is a list of 1 to {MAX_ENTRIES} journal entries")
        checked = [check_entry(entry) for entry in entries]
        if len({e["origin"]["replica"] for e in checked}) != 1:
            raise Invalid("the entries of one push come from one replica")
        confirm = value.get("confirm", False)
        if not isinstance(confirm, bool):
            raise Invalid("confirm is true or false")
        if grant_["path"]:
            await call(inside_path, database, grant_["disk"], checked, grant_["path"])
        result = await call(database.push, request.path_params["disk"], push_id, base,
                            checked, confirm=confirm, delete_share=delete_share)
        return JSONResponse(result)

    @route
    async def events(request: Request) -> Response:
        await grant(request)
        disk = request.path_params["disk"]
        start = await call(database.head, disk)

        async def stream() -> AsyncIterator[bytes]:
            seen = start
            yield f"retry: 1000\nevent: head\ndata: {json.dumps({'head': seen})}\n\n".encode()
            quiet = 0.0
            while not await request.is_disconnected():
                await asyncio.sleep(EVENT_POLL_S)
                try:
                    current = await call(database.head, disk)
                except Unavailable:
                    continue
                if current != seen:
                    seen, quiet = current, 0.0
                    yield f"event: head\ndata: {json.dumps({'head': seen})}\n\n".encode()
                else:
                    quiet += EVENT_POLL_S
                    if quiet >= KEEPALIVE_S:
                        quiet = 0.0
                        yield b": keep-alive\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    async def not_found(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": "no such route"}, status_code=404)

    prefix = "/v1/disks/{disk}"
    return Starlette(routes=[
        Route("/", hello),
        Route("/v1/token", whoami),
        Route(prefix + "/head", head),
        Route(prefix + "/log", log),
        Route(prefix + "/chunks/missing", missing, methods=["POST"]),
        Route(prefix + "/chunks/{hash}", put_chunk, methods=["PUT"]),
        Route(prefix + "/chunks/{hash}", get_chunk, methods=["GET"]),
        Route(prefix + "/push", push, methods=["POST"]),
        Route(prefix + "/events", events),
    ], exception_handlers={404: not_found}, middleware=_cors(allow_origins))


def _cors(origins: Sequence[str]) -> list[Middleware]:
    """Cross-origin access for the pages ``origins`` only: a browser replica's fetches carry
    ``Authorization`` and JSON, so their preflight is answered for those headers. A page of
    another origin gets no CORS header: its browser keeps every answer from it."""
    if not origins:
        return []
    return [Middleware(CORSMiddleware, allow_origins=list(origins),
                       allow_methods=["GET", "POST", "PUT"],
                       allow_headers=["Authorization", "Content-Type"],
                       expose_headers=["Retry-After"], max_age=600)]


def _number(text: str, name: str) -> int:
    if not text.isdigit() or len(text) > 18:
        raise Invalid(f"{name} is a whole number")
    return int(text)
