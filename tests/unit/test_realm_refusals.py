"""Code a scoop runs never runs in this Python (py_vfs/shell/realm.py, docs/sandbox.md "A realm
for code"): where there is no realm, as on CPython, a shell confined to a view refuses
``python``, ``python -c``, ``.py`` and ``.jsh`` scripts with a clear error and changes nothing,
while the unrestricted shell runs the same Python as before."""

from __future__ import annotations

import pytest
from helpers import run

from py_vfs import VFS
from py_vfs.shell import Shell
from py_vfs.shell.realm import CANNOT_RUN

PROBE = "await vfs.write_file('/scoops/alpha/workspace/ran.txt', 'ran'); print('ran')"


@pytest.mark.parametrize("line", [
    f'python -c "{PROBE}"',
    "echo \"$PROBE\" | python -",
    "python /scoops/alpha/workspace/probe.py",
    "/scoops/alpha/workspace/probe.py",
    "/scoops/alpha/workspace/probe.jsh",
])
def test_a_scoop_cannot_run_code_where_there_is_no_realm(line):
    cone = VFS.memory()
    shell = Shell(cone)
    run(shell.run("scoop alpha"))
    run(cone.write_file("/scoops/alpha/workspace/probe.py", f"#!/usr/bin/env python3\n{PROBE}\n"))
    run(cone.chmod("/scoops/alpha/workspace/probe.py", 0o755))
    run(cone.write_file("/scoops/alpha/workspace/probe.jsh", "console.log('ran')"))
    result = run(shell.run(f"PROBE=\"{PROBE}\"; {line}"))
    assert result.code == CANNOT_RUN, result
    assert result.stdout == ""
    assert "cannot" in result.stderr or "Operation not permitted" in result.stderr
    if "jsh" not in line:
        assert "no in-process sandbox" in result.stderr, result.stderr
    assert not cone.exists("/scoops/alpha/workspace/ran.txt")


def test_a_view_cannot_run_python_through_run_python_where_there_is_no_realm():
    from py_vfs.web.webapi import WebAPI

    cone = VFS.memory()
    view = run(cone.scoop("alpha"))
    api = WebAPI(view)

    async def call() -> dict:
        reply = api.call("runPython", [PROBE])
        return reply if isinstance(reply, dict) else await reply

    reply = run(call())
    assert reply["value"]["code"] == CANNOT_RUN
    assert "no in-process sandbox" in reply["value"]["stderr"]
    assert not cone.exists("/scoops/alpha/workspace/ran.txt")


def test_the_unrestricted_shell_still_runs_python_here():
    cone = VFS.memory()
    run(cone.mkdir("/scoops/alpha/workspace", recursive=True))
    result = run(Shell(cone).run(f'python -c "{PROBE}"'))
    assert (result.code, result.stdout) == (0, "ran\n")
    assert run(cone.read_file("/scoops/alpha/workspace/ran.txt")) == b"ran"
