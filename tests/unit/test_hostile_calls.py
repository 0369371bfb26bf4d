"""Every operation of the JS protocol (py_vfs/web/protocol.py OPS, answered by WebAPI) given hostile
arguments, as a raw message on a view's port could carry them (no page checked them): each
failure is a POSIX error with a message that changed nothing, never a Python exception (the
worker would answer it as EIO). And text decoded for JS is decoded as Node does: bytes that
are not UTF-8 become U+FFFD (security review, issue 27, finding 11)."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from py_vfs import VFS
from py_vfs.web import protocol
from py_vfs.web.webapi import WebAPI

# A valid value of each argument kind, the base each hostile call changes one place of.
VALID = {"path": "/d/f", "content": b"hi", "options": None, "number": 1, "string": "x",
         "bool": True, "mode": 0o644, "time": 0, "copymode": 0, "linktype": None, "any": None,
         "state": 1, "writer": "w"}
HOSTILE = [None, True, 0, -1, 1.5, 2**70, -(2**70), math.nan, math.inf, -math.inf, "", "\0",
           "a\0b", "/d/\0", "\udc80", "/\ud800", "\xff", "x" * 5000, b"\xff\xfe", b"", [], {},
           [[{}]], {"a": {"b": [math.nan]}}, [1, "a", None], {"encoding": 5}, "/", "/d/f"]
NOT_UTF8 = b"ok \xff\xfe \xe2\x82 end\n"
# What Node's readFile(path, "utf8") gives for NOT_UTF8 (Buffer#toString: one U+FFFD for each
# maximal ill-formed subsequence).
NODE_TEXT = "ok \ufffd\ufffd \ufffd end\n"
PYTHON_OPS = sorted(op.name for op in protocol.OPS if op.home == "python")


def answer(api: WebAPI, op: str, args: list[Any]) -> dict[str, Any]:
    """The envelope WebAPI gives the worker for one call, settled."""
    async def settle() -> dict[str, Any]:
        result = api.call(op, args)
        return result if isinstance(result, dict) else await result
    return asyncio.run(settle())


def fresh() -> WebAPI:
    vfs = VFS.memory()
    asyncio.run(vfs.write_file("/d/f", NOT_UTF8))
    return WebAPI(vfs)


def calls(op: str) -> list[list[Any]]:
    """Hostile calls of ``op``: each argument, and each option it honours, replaced by each
    hostile value in turn; and too many arguments."""
    spec = protocol.BY_NAME[op]
    base = [VALID[kind] for _, kind, _ in spec.args]
    found = []
    for position in range(len(base)):
        for value in HOSTILE:
            found.append([*base[:position], value, *base[position + 1:]])
    kinds = [kind for _, kind, _ in spec.args]
    if "options" in kinds:
        at = kinds.index("options")
        for key in spec.options:
            for value in HOSTILE:
                found.append([*base[:at], {key: value, "junk": [value]}, *base[at + 1:]])
    found.append([*base, 1, {"x": math.nan}, [None]])
    found.append([*base, 5, "not a function"])  # shell, runPython: where the worker's go
    return found


@pytest.mark.parametrize("op", PYTHON_OPS)
def test_every_operation_refuses_hostile_arguments_with_a_posix_code(op):
    for args in calls(op):
        api = fresh()
        before = (api.vfs.revision, dict(api.vfs.index.nodes))
        try:
            envelope = answer(api, op, args)
        except Exception as error:  # what the test is about: none may escape
            pytest.fail(f"{op}{args!r:.200} raised {type(error).__name__}: {error}")
        error = envelope.get("error")
        if error is None:
            continue
        assert error["code"] in protocol.ERRNO and error["code"] != "EIO", (op, args, error)
        assert error["message"].startswith(error["code"] + ":"), (op, args, error)
        assert (api.vfs.revision, dict(api.vfs.index.nodes)) == before, (op, args, error)


@pytest.mark.parametrize(("args", "hint"), [
    (["/d/f", {"encoding": "klingon"}], "encoding"),
    (["/d/f", 5], "options"),
    ([None], "'path' is required"),
    (["/d/\0"], "NUL"),
    (["/d/f", None, 3], "at most 2 arguments"),
])
def test_a_refused_argument_is_named_in_the_hint(args, hint):
    error = answer(fresh(), "readFile", args)["error"]
    assert (error["code"], error["syscall"]) == ("EINVAL", "readFile")
    assert hint in error["hint"]


def test_numbers_must_be_numbers_and_nan_is_refused():
    api = fresh()
    for bad in (math.nan, "3", True, [1]):
        error = answer(api, "truncate", ["/d/f", bad])["error"]
        assert error["code"] == "EINVAL" and "number" in error["hint"]
    assert answer(api, "complete", ["ls ", math.inf])["error"]["code"] == "EINVAL"
    assert answer(api, "journal", [{"limit": math.inf}])["error"]["code"] == "EINVAL"
    # Where Infinity means "no limit", it is accepted.
    found = answer(api, "grep", ["ok", "/", {"maxFileSize": math.inf, "maxResults": math.inf}])
    assert [match["path"] for match in found["value"]["matches"]] == ["/d/f"]


def test_digests_must_be_sha256_and_only_a_plain_write_file_takes_them():
    """The worker hashes large writes and adds the digests to writeFile's options (and drops
    any a caller sent: web/worker/worker.mjs); what reaches Python is a list of sha256 hex digests,
    so no chunk is stored under a key of a caller's choosing, and a step takes none."""
    api = fresh()
    for bad in (["../x"], "a" * 64, [1], ["A" * 64]):
        error = answer(api, "writeFile", ["/g", b"x", {"digests": bad}])["error"]
        assert error["code"] == "EINVAL" and "digests" in error["hint"]
    step = answer(api, "stepBegin", [])["value"]
    error = answer(api, "stepOp", [step, "writeFile", "/g", b"x", {"digests": ["0" * 64]}])
    assert error["error"]["code"] == "EINVAL" and "digests" in error["error"]["hint"]
    assert "error" not in answer(api, "stepEnd", [step, True])
    assert not api.vfs.exists("/g")


@pytest.mark.parametrize("options", ["utf8", "utf-8", {"encoding": "utf8"}, {"encoding": "UTF-8"}])
def test_read_file_as_utf8_of_bytes_that_are_not_utf8_replaces_them_as_node(options):
    api = fresh()
    assert answer(api, "readFile", ["/d/f", options]) == {"value": NODE_TEXT}
    assert answer(api, "readFile", ["/d/f", {"encoding": "latin1"}]) == {
        "value": NOT_UTF8.decode("latin-1")}
    assert answer(api, "readFile", ["/d/f"]) == {"value": NOT_UTF8}


def test_read_file_as_utf8_in_a_step_and_in_a_view_replaces_too():
    api = fresh()
    step = answer(api, "stepBegin", [])["value"]
    assert answer(api, "stepOp", [step, "readFile", "/d/f", "utf8"]) == {"value": NODE_TEXT}
    assert answer(api, "stepOp", [step, "readFile", "/d/f", {"encoding": 7}])["error"][
        "code"] == "EINVAL"
    assert "error" not in answer(api, "stepEnd", [step, False])
    child = api.channels.child(answer(api, "restrict", [{"read": ["/d"]}])["value"])
    assert answer(child, "readFile", ["/d/f", "utf8"]) == {"value": NODE_TEXT}
