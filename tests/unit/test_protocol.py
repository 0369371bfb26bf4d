"""The JS<->Python protocol (web/protocol.py): one declaration, which the JS side and WebAPI's
dispatch both follow, and Node's copyFile mode flags."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from helpers import run

from py_vfs.disk.content import CHUNK_SIZE
from py_vfs.vfs import VFS
from py_vfs.web import protocol
from py_vfs.web.webapi import WebAPI

ROOT = Path(__file__).resolve().parent.parent.parent


def api_with(files: dict[str, bytes]) -> tuple[VFS, WebAPI]:
    vfs = VFS.memory()
    for path, data in files.items():
        run(vfs.write_file(path, data))
    return vfs, WebAPI(vfs)


def test_the_built_page_and_preview_site_carry_the_protocol_python_declares():
    """build/build.py writes protocol.mjs from py_vfs/web/protocol.py (npm test builds first)."""
    dist = ROOT / "dist"
    for built in (dist / "protocol.mjs", dist / "preview-origin" / "protocol.mjs"):
        assert built.is_file(), f"{built} is missing: run build/build.py"
        assert built.read_text() == protocol.render_js(), f"{built} is stale: run build/build.py"
    assert not list((ROOT / "web").rglob("protocol.mjs")), "protocol.mjs is generated, not a source"


def test_webapi_answers_exactly_the_operations_the_protocol_gives_python():
    api = WebAPI(VFS.memory())
    assert set(api._ops) == protocol.PYTHON_OPS
    unknown = api.call("nope", [])
    assert unknown["error"]["code"] == "EINVAL"


def test_no_js_file_keeps_its_own_copy_of_a_shared_constant():
    """CHUNK_SIZE, the format version, LOG_KEEP and the preview protocol's version come from
    the generated protocol.mjs; a literal copy in a JS file would drift the day one side changes."""
    sources = [*ROOT.glob("web/**/*.mjs"), *ROOT.glob("service_worker/*")]
    copies = re.compile(r"const (CHUNK_SIZE|FORMAT|LOG_KEEP|PREVIEW_PROTOCOL|PROTOCOL) = [1-9]"
                        r"|512 \* 1024")
    found = [f"{path.name}: {line.strip()}" for path in sources if path.name != "protocol.mjs"
             for line in path.read_text().splitlines() if copies.search(line)]
    assert found == []
    assert protocol.CONSTANTS["CHUNK_SIZE"] == CHUNK_SIZE


def test_error_envelope_has_every_field_in_every_error():
    api = WebAPI(VFS.memory())
    error = api.call("stat", ["/missing"])["error"]
    assert list(error) == list(protocol.ERROR_FIELDS)
    assert error == {"code": "ENOENT", "errno": -2, "syscall": "stat", "path": "/missing",
                     "dest": None, "hint": None,
                     "message": "ENOENT: no such file or directory, stat '/missing'"}


def answer(api: WebAPI, op: str, args: list) -> dict:
    """The envelope ``api`` answers the call with, at once or once its Future is done."""
    async def called() -> dict:
        result = api.call(op, args)
        return result if isinstance(result, dict) else await result
    return run(called())


def test_copyfile_excl_refuses_an_existing_destination_as_node_does():
    vfs, api = api_with({"/a": b"A", "/b": b"B"})
    error = api.call("copyFile", ["/a", "/b", protocol.COPYFILE_EXCL])["error"]
    assert (error["code"], error["errno"], error["syscall"], error["path"], error["dest"]) == (
        "EEXIST", -17, "copyfile", "/a", "/b")
    assert run(vfs.read_file("/b")) == b"B"
    run(api._ops["copyFile"]("/a", "/c", protocol.COPYFILE_EXCL))
    assert run(vfs.read_file("/c")) == b"A"


@pytest.mark.parametrize("mode", [protocol.COPYFILE_FICLONE_FORCE,
                                  protocol.COPYFILE_FICLONE_FORCE | protocol.COPYFILE_EXCL])
def test_copyfile_ficlone_force_is_not_supported_and_copies_nothing(mode):
    vfs, api = api_with({"/a": b"A", "/b": b"B"})
    assert answer(api, "copyFile", ["/a", "/e", mode])["error"]["code"] == "ENOTSUP"
    assert not vfs.exists("/e")
    expected = "EEXIST" if mode & protocol.COPYFILE_EXCL else "ENOTSUP"
    assert answer(api, "copyFile", ["/a", "/b", mode])["error"]["code"] == expected
    assert run(vfs.read_file("/b")) == b"B"  # libuv would have removed it


def test_copyfile_checks_in_libuvs_order_and_a_failed_copy_changes_nothing():
    """Node's copyFile (libuv's uv_fs_copyfile): the source is checked first, then the
    destination, then a directory as the source fails with EISDIR. libuv has emptied and
    removed the destination by then; here it stays as it was (docs/api.md, "Differences from
    Node")."""
    vfs, api = api_with({"/f": b"F", "/g": b"G", "/t": b"T"})
    run(vfs.mkdir("/d"))
    run(vfs.symlink("t", "/link"))
    before = (vfs.revision, dict(vfs.index.nodes))

    def code(src: str, dst: str, mode: int = 0) -> str:
        return answer(api, "copyFile", [src, dst, mode])["error"]["code"]

    assert code("/missing", "/g", protocol.COPYFILE_EXCL) == "ENOENT"  # the source first
    assert code("/f/x", "/g") == "ENOTDIR"
    assert code("/f", "/g/x") == "ENOTDIR"
    assert code("/f", "/nope/x", protocol.COPYFILE_EXCL) == "ENOENT"
    assert code("/d", "/nope/x") == "ENOENT"
    assert code("/d", "/g/x") == "ENOTDIR"
    assert code("/d", "/d") == code("/f", "/d") == "EISDIR"
    assert code("/d", "/new") == code("/d", "/g") == code("/d", "/link") == "EISDIR"
    assert code("/d", "/g", protocol.COPYFILE_EXCL) == "EEXIST"
    assert code("/f", "/f", protocol.COPYFILE_EXCL) == "EEXIST"
    run(api._ops["copyFile"]("/f", "/f"))  # onto itself: nothing changes
    assert (vfs.revision, dict(vfs.index.nodes)) == before


def test_copyfile_ficlone_falls_back_to_a_copy():
    vfs, api = api_with({"/a": b"A"})
    run(api._ops["copyFile"]("/a", "/f", protocol.COPYFILE_FICLONE))
    assert run(vfs.read_file("/f")) == b"A"


def test_binary_is_latin1_as_in_node():
    _, api = api_with({"/l": bytes([65, 233, 255])})
    assert run(api._ops["readFile"]("/l", "binary")) == "Aéÿ"
    assert run(api._ops["readFile"]("/l", {"encoding": "latin1"})) == "Aéÿ"


def test_write_digests_ride_in_the_options():
    """The worker hashes big writes with WebCrypto and adds the digests to the options."""
    data = bytes(range(256)) * (CHUNK_SIZE // 256 + 1)
    digests = [hashlib.sha256(data[i:i + CHUNK_SIZE]).hexdigest()
               for i in range(0, len(data), CHUNK_SIZE)]
    vfs, api = api_with({})
    run(api._ops["writeFile"]("/big", data, {"digests": digests}))
    assert vfs.index.child(vfs.index.root, "big").chunks == tuple(digests)
