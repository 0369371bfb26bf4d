"""Scoops (``vfs.scoop``), the shell's ``scoop``/``exit``/``scoops``, and restricted views over
the JS protocol (py_vfs/web/views.py): each view's calls run in the view, whatever id or path
they name."""

from __future__ import annotations

import asyncio

import pytest
from helpers import run

from py_vfs import VFS, FsError
from py_vfs.hosts.preview import LocalPreviews
from py_vfs.shell import Shell
from py_vfs.web.webapi import WebAPI


def op(api: WebAPI, name: str, *args):
    """One operation of ``api``'s protocol table (what its port's calls reach): its value, or
    the code of the error it raises."""
    try:
        result = api._ops[name](*args)
        return run(result) if asyncio.iscoroutine(result) else result
    except FsError as error:
        return error.code


def test_two_scoops_see_shared_and_not_each_other():
    cone = VFS.memory()
    run(cone.write_file("/workspace/user.txt", "the user's"))
    one, two = run(cone.scoop("one")), run(cone.scoop("two"))
    run(one.write_file("/scoops/one/workspace/a.txt", "one's"))
    run(two.write_file("/scoops/two/home/b.txt", "two's"))
    run(one.write_file("/shared/from-one.txt", "hello"))
    assert run(two.read_file("/shared/from-one.txt")) == b"hello"
    assert two.readdir("/scoops") == ["two"]
    assert not two.exists("/scoops/one/workspace/a.txt")
    assert not one.exists("/workspace/user.txt")
    with pytest.raises(FsError) as caught:
        run(two.write_file("/scoops/one/workspace/a.txt", "pwned"))
    assert caught.value.code == "EACCES"
    assert cone.walk("/") == ["/scoops/one/workspace/a.txt", "/scoops/two/home/b.txt",
                              "/shared/from-one.txt", "/workspace/user.txt"]
    assert sorted(cone.readdir("/scoops/one")) == ["home", "tmp", "workspace"]
    assert cone.scoops() == ["one", "two"]
    writers = {row["writer"] for row in run(cone.journal(path="/scoops/two/home/b.txt"))}
    assert writers == {"scoop:two"}  # "what did this agent touch" is answerable


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "x" * 80])
def test_a_scoop_name_is_one_segment(name):
    with pytest.raises(FsError) as caught:
        run(VFS.memory().scoop(name))
    assert caught.value.code == "EINVAL"


def test_the_shell_enters_and_leaves_a_scoop():
    cone = VFS.memory()
    run(cone.write_file("/top.txt", "cone only"))
    shell = Shell(cone)
    entered = run(shell.run("scoop alpha"))
    assert (entered.code, entered.cwd, entered.scoop) == (0, "/scoops/alpha/workspace", "alpha")
    inside = run(shell.run("echo hi > note; ls; cat /top.txt"))
    assert inside.stdout == "note\n" and "No such file" in inside.stderr
    assert run(shell.run("scoop beta")).code == 1  # one scoop at a time
    assert run(shell.run("exit")).scoop is None
    assert run(shell.run("pwd")).stdout == "/\n"
    assert run(shell.run("scoop beta; scoops")).stdout == "beta\n"  # beta sees only itself
    assert run(shell.run("exit; scoops")).stdout == ""  # exit ends the line it is on
    assert run(shell.run("scoops")).stdout == "alpha\nbeta\n"
    # Outside a scoop, exit ends the line with its status, as in bash.
    assert (run(shell.run("exit 3; echo no")).stdout, run(shell.run("exit 3")).code) == ("", 3)
    assert run(cone.read_file("/scoops/alpha/workspace/note")) == b"hi\n"
    assert run(cone.journal(limit=1))[0]["writer"] == "shell"


def test_a_view_over_the_protocol_stays_in_its_view():
    cone = VFS.memory()
    run(cone.write_file("/secret/s.txt", "s"))
    previews = LocalPreviews()
    api = WebAPI(cone, previews=previews)
    child = api.channels.child(op(api, "scoop", "one"))
    assert op(child, "readFile", "/secret/s.txt") == "ENOENT"
    assert op(child, "writeFile", "/secret/x", "x") == "EACCES"
    assert op(child, "scoop", "two") == "EACCES"
    # The disk's own step cannot be driven through the view by its id.
    step_id = op(api, "stepBegin")
    assert op(child, "stepOp", step_id, "writeFile", "/secret/y", "y") == "EINVAL"
    op(api, "stepEnd", step_id, False)
    # Narrowing from the view: the grandchild reads only /shared.
    grandchild = child.channels.child(op(child, "restrict", {"read": ["/shared", "/secret"]}))
    assert op(grandchild, "readdir", "/") == ["shared"]
    assert op(grandchild, "writeFile", "/shared/z", "z") == "EACCES"
    # Preview roots: readable folders only, minted for their real path.
    op(child, "symlink", "/shared", "/scoops/one/site")
    url = op(child, "previewRoot", "/scoops/one/site", "folder")
    assert previews.roots[url.rstrip("/").rsplit("/", 1)[-1]] == ("/shared", "folder")
    assert op(child, "previewRoot", "/secret", "folder") == "ENOENT"
    result = op(child, "shell", "open /secret")
    assert result["open"] == [] and result["code"] != 0
