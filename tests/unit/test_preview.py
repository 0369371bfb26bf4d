"""The preview's HTTP decisions (hosts/preview.py): status, headers and body for a VFS path."""

from __future__ import annotations

import asyncio

import pytest

from py_vfs import VFS
from py_vfs.disk.content import CHUNK_SIZE
from py_vfs.hosts.preview import (
    PreviewRequest,
    PreviewResponse,
    parse_range,
    pin_root,
    resolve_in_root,
    respond,
)

BIG = bytes(range(256)) * (5 * 1024)  # 1.25 MiB: three pieces


@pytest.fixture
def vfs(vfs: VFS) -> VFS:
    async def fill() -> None:
        await vfs.write_file("/site/index.html", "<h1>hi</h1>")
        await vfs.write_file("/site/a b/ü.css", "h1 {}")
        await vfs.write_file("/docs/readme.txt", "read me")
        await vfs.write_file("/big.bin", BIG)
        await vfs.write_file("/empty.txt", "")

    asyncio.run(fill())
    return vfs


def ask(vfs: VFS, path: str, **fields: str) -> PreviewResponse:
    return asyncio.run(respond(vfs, PreviewRequest(path, **fields)))


def whole(vfs: VFS, path: str, **fields: str) -> tuple[PreviewResponse, bytes]:
    """The response and its full body, the streamed rest included."""

    async def run() -> tuple[PreviewResponse, bytes]:
        answer = await respond(vfs, PreviewRequest(path, **fields))
        body = answer.body
        if answer.stream is not None:
            body += b"".join([piece async for piece in answer.stream])
        return answer, body

    return asyncio.run(run())


def test_a_file_has_type_length_etag_and_last_modified(vfs):
    answer = ask(vfs, "/site/index.html")
    assert answer.status == 200 and answer.body == b"<h1>hi</h1>"
    headers = answer.headers
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["content-length"] == "11"
    assert headers["etag"].startswith('"') and len(headers["etag"]) > 10
    assert headers["last-modified"].endswith(" GMT")
    assert headers["cache-control"] == "no-cache" and headers["accept-ranges"] == "bytes"


def test_the_etag_follows_the_content_not_the_write(vfs):
    before = ask(vfs, "/docs/readme.txt").headers["etag"]
    asyncio.run(vfs.write_file("/docs/readme.txt", "read me"))
    assert ask(vfs, "/docs/readme.txt").headers["etag"] == before
    asyncio.run(vfs.write_file("/docs/readme.txt", "changed"))
    assert ask(vfs, "/docs/readme.txt").headers["etag"] != before


def test_a_matching_if_none_match_is_304_without_body(vfs):
    etag = ask(vfs, "/site/index.html").headers["etag"]
    for header in (etag, f'"x", W/{etag}', "*"):
        answer = ask(vfs, "/site/index.html", if_none_match=header)
        assert (answer.status, answer.body, answer.stream) == (304, b"", None)
        assert answer.headers["etag"] == etag
    assert ask(vfs, "/site/index.html", if_none_match='"other"').status == 200


def test_head_has_the_headers_of_get_and_no_body(vfs):
    answer = ask(vfs, "/big.bin", method="HEAD")
    assert (answer.status, answer.body, answer.stream) == (200, b"", None)
    assert answer.headers["content-length"] == str(len(BIG))


@pytest.mark.parametrize(("header", "start", "end"), [
    ("bytes=0-9", 0, 10),
    ("bytes=600000-600099", 600000, 600100),
    ("bytes=1000000-", 1000000, len(BIG)),
    ("bytes=-100", len(BIG) - 100, len(BIG)),
    ("bytes=10-99999999", 10, len(BIG)),
])
def test_a_range_is_206_with_exactly_those_bytes(vfs, header, start, end):
    answer, body = whole(vfs, "/big.bin", range=header)
    assert answer.status == 206
    assert body == BIG[start:end]
    assert answer.headers["content-length"] == str(end - start)
    assert answer.headers["content-range"] == f"bytes {start}-{end - 1}/{len(BIG)}"


@pytest.mark.parametrize("header", ["bytes=99999999-", "bytes=-0"])
def test_an_unsatisfiable_range_is_416_with_the_size(vfs, header):
    answer = ask(vfs, "/big.bin", range=header)
    assert answer.status == 416
    assert answer.headers["content-range"] == f"bytes */{len(BIG)}"


@pytest.mark.parametrize("header",
                         ["bytes=0-1,5-6", "items=0-1", "bytes=abc", "bytes=9-2", "bytes=-"])
def test_a_range_we_do_not_serve_gives_the_whole_file(vfs, header):
    answer, body = whole(vfs, "/big.bin", range=header)
    assert answer.status == 200 and body == BIG


def test_if_range_with_an_old_etag_gives_the_whole_file(vfs):
    etag = ask(vfs, "/big.bin").headers["etag"]
    assert ask(vfs, "/big.bin", range="bytes=0-0", if_range=etag).status == 206
    answer, body = whole(vfs, "/big.bin", range="bytes=0-0", if_range='"old"')
    assert answer.status == 200 and body == BIG


def test_a_large_body_comes_as_a_first_piece_and_a_stream(vfs):
    _, body = whole(vfs, "/big.bin")
    assert len(ask(vfs, "/big.bin").body) == CHUNK_SIZE
    assert body == BIG


def test_an_empty_file_is_200_with_an_empty_body(vfs):
    answer = ask(vfs, "/empty.txt")
    assert (answer.status, answer.body, answer.stream) == (200, b"", None)
    assert answer.headers["content-length"] == "0"
    assert ask(vfs, "/empty.txt", range="bytes=0-").status == 416


def test_a_directory_serves_its_index_or_a_listing(vfs):
    assert ask(vfs, "/site/").body == b"<h1>hi</h1>"
    listing = ask(vfs, "/site/a b/")
    assert listing.status == 200 and listing.headers["content-type"].startswith("text/html")
    assert b'href="/preview/site/a%20b/%C3%BC.css"' in listing.body
    redirect = ask(vfs, "/site/a b")
    assert (redirect.status, redirect.headers["location"]) == (301, "/preview/site/a%20b/")


def test_missing_is_404_naming_the_path_and_enoent(vfs):
    answer = ask(vfs, "/site/nope.js")
    assert answer.status == 404
    assert b"ENOENT" in answer.body and b"/site/nope.js" in answer.body
    assert ask(vfs, "/site/index.html/x").status == 404  # ENOTDIR


def test_dot_dot_never_leaves_the_root(vfs):
    assert ask(vfs, "/../../docs/readme.txt").body == b"read me"
    assert ask(vfs, "/site/../../../site/index.html").body == b"<h1>hi</h1>"


def test_other_errors_are_500_with_the_code(vfs):
    asyncio.run(vfs.symlink("/loop", "/loop"))
    answer = ask(vfs, "/loop")
    assert answer.status == 500 and b"ELOOP" in answer.body


def test_the_request_comes_from_the_worker_as_a_dict_or_a_path():
    assert PreviewRequest.of("/a") == PreviewRequest("/a")
    got = PreviewRequest.of({"path": "/a", "method": "HEAD", "range": None, "if_range": '"e"'})
    assert got == PreviewRequest("/a", method="HEAD", if_range='"e"')


def test_parse_range_ignores_what_it_does_not_understand():
    assert parse_range("bytes=0-0", 1) == (0, 1)
    assert parse_range("bytes = 2-", 5) == (2, 5)
    assert parse_range("bytes=1-2-3", 5) is None


def test_the_stream_comes_in_chunks_and_pins_its_version_until_closed(vfs):
    async def run() -> tuple[bytes, int, int]:
        answer = await respond(vfs, PreviewRequest("/big.bin"))
        assert answer.stream is not None
        pinned = len(vfs.content.pins)
        await vfs.write_file("/big.bin", b"replaced while streaming")
        pieces = [answer.body]
        async for piece in answer.stream:
            assert len(piece) <= CHUNK_SIZE
            pieces.append(piece)
        return b"".join(pieces), pinned, len(vfs.content.pins)

    body, pinned, after = asyncio.run(run())
    assert body == BIG  # the version the headers describe, not the one written meanwhile
    assert pinned > 0 and after == 0


def test_a_body_sent_whole_leaves_nothing_pinned(vfs):
    answer = ask(vfs, "/site/index.html")
    assert answer.stream is None and not vfs.content.pins
    ranged = ask(vfs, "/big.bin", range="bytes=10-20")
    assert ranged.stream is None and not vfs.content.pins


# --- preview roots: nothing outside the root is served --------------------------------------


def in_root(vfs: VFS, root: str, kind: str, relative: str) -> str:
    return resolve_in_root(vfs, root, kind, relative)


def test_a_folder_root_serves_below_it_and_dot_dot_stops_at_its_top(vfs):
    assert in_root(vfs, "/site", "folder", "/a b/ü.css") == "/site/a b/ü.css"
    assert in_root(vfs, "/site", "folder", "/") == "/site"
    # ".." folds lexically and never climbs above the root: /docs is out of reach.
    assert in_root(vfs, "/site", "folder", "/../../index.html") == "/site/index.html"
    with pytest.raises(FileNotFoundError):
        in_root(vfs, "/site", "folder", "/../docs/readme.txt")  # is /site/docs/readme.txt
    # A name that only starts like the root is not inside it.
    asyncio.run(vfs.write_file("/site2/x.txt", "x"))
    with pytest.raises(FileNotFoundError):
        in_root(vfs, "/site", "folder", "/../site2/x.txt")


def test_a_symlink_out_of_the_root_is_not_followed_one_inside_is(vfs):
    async def links() -> None:
        await vfs.symlink("/docs/readme.txt", "/site/out.txt")
        await vfs.symlink("/docs", "/site/outdir")
        await vfs.symlink("../index.html", "/site/a b/up.html")
        await vfs.symlink("/site", "/docs/site-link")

    asyncio.run(links())
    for relative in ("/out.txt", "/outdir/readme.txt", "/outdir/"):
        with pytest.raises(FileNotFoundError):
            in_root(vfs, "/site", "folder", relative)
        answer = ask_in(vfs, "/site", "folder", relative)
        assert answer.status == 404 and b"read me" not in answer.body
    assert in_root(vfs, "/site", "folder", "/a b/up.html") == "/site/a b/up.html"
    assert ask_in(vfs, "/site", "folder", "/a b/up.html").body == b"<h1>hi</h1>"
    # A root reached through a link is its target: its own files are inside.
    assert ask_in(vfs, "/docs/site-link", "folder", "/index.html").body == b"<h1>hi</h1>"


def test_a_file_root_serves_only_itself_under_its_own_name(vfs):
    assert ask_in(vfs, "/docs/readme.txt", "file", "/readme.txt").body == b"read me"
    for relative in ("/", "/other.txt", "/readme.txt/x", "/../readme.txt/../index.html"):
        assert ask_in(vfs, "/docs/readme.txt", "file", relative).status == 404, relative


def test_a_token_roots_links_redirects_and_errors_in_its_own_url(vfs):
    listing = ask_in(vfs, "/site", "folder", "/a b/")
    assert b'href="/preview/tok/a%20b/%C3%BC.css"' in listing.body
    assert b"Directory listing for /a b" in listing.body
    redirect = ask_in(vfs, "/site", "folder", "/a b")
    assert (redirect.status, redirect.headers["location"]) == (301, "/preview/tok/a%20b/")
    missing = ask_in(vfs, "/site", "folder", "/nope.js")
    # The error names the path inside the root, not where the root lives in the VFS.
    assert b"'/nope.js'" in missing.body and b"/site" not in missing.body


def ask_in(vfs: VFS, root: str, kind: str, relative: str) -> PreviewResponse:
    """The answer for ``relative`` under a token minted for ``root`` (pinned as the page
    mints it)."""
    request = PreviewRequest(relative, token="tok", **pin_root(vfs, root, kind).fields())
    return asyncio.run(respond(vfs, request))
