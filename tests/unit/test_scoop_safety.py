"""What a scoop must not get from the user's shell (issue 26): a command it planted, run by name
with the whole disk's rights (py_vfs/shell/trust.py); state that outlives `exit`; a host folder
mounted on CPython (docs/sandbox.md, docs/scripts.md)."""

from __future__ import annotations

from typing import Any

from helpers import run
from shell_session import outcome as sh

from py_vfs import VFS
from py_vfs.shell import Shell
from py_vfs.shell.complete import complete
from py_vfs.shell.pipes import BytesInput

PLANT = "import sys\nprint('planted', file=sys.stderr)\nopen('/workspace/owned', 'w').write('x')\n"


def cone_with_plant() -> tuple[VFS, Shell]:
    """A disk whose scoop `a` wrote executable scripts into /shared/bin and its own folder."""
    vfs = VFS.memory()
    run(vfs.mkdir("/workspace/bin", recursive=True))
    shell = Shell(vfs)
    assert sh(shell, "scoop a")[2] == 0
    for path in ("/shared/bin/pgview.py", "/scoops/a/workspace/bin/pgmore.py"):
        line = f"mkdir -p {path.rsplit('/', 1)[0]} && cat > {path} && chmod 755 {path}"
        assert run(shell.run(line, stdin=BytesInput(PLANT))).code == 0
    assert sh(shell, "exit")[2] == 0
    return vfs, shell


# --- A: no planted commands -----------------------------------------------------------------


def test_the_cone_never_runs_by_name_a_script_a_scoop_wrote():
    vfs, shell = cone_with_plant()
    # /shared/bin is not on the whole disk's PATH...
    assert sh(shell, "echo $PATH") == ("/workspace/bin:/workspace/skills\n", "", 0)
    assert sh(shell, "pgview") == ("", "sh: pgview: command not found\n", 127)
    # ...and put there, or reached through a link from a trusted folder, it is skipped.
    out, err, code = sh(shell, "PATH=/shared/bin:/scoops/a/workspace/bin:$PATH; pgview; pgmore")
    assert (out, code) == ("", 127)
    assert err == ("sh: pgview: command not found (/shared/bin/pgview.py not run from the whole "
                   "disk: a scoop can write it)\nsh: pgmore: command not found "
                   "(/scoops/a/workspace/bin/pgmore.py not run from the whole disk: a scoop can "
                   "write it)\n")
    sh(shell, "ln -s /shared/bin/pgview.py /workspace/bin/view.py; ln -s /shared/bin /workspace/sb")
    assert sh(shell, "view")[2] == 127
    assert sh(shell, "PATH=/workspace/sb; pgview")[2] == 127
    # which says why; Tab completion does not offer it.
    assert sh(shell, "PATH=/shared/bin; which pgview") == (
        "", "which: /shared/bin/pgview.py: not run from the whole disk: a scoop can write it\n", 1)
    assert not vfs.exists("/workspace/owned")
    assert complete(shell, "pgvi", 4).candidates == []
    # Named by its path, the cone refuses to run it too.
    out, err, code = sh(shell, "/shared/bin/pgview.py")
    assert (out, code) == ("", 126) and "a scoop can write it" in err
    assert not vfs.exists("/workspace/owned")


def test_a_script_the_user_wrote_still_runs_and_a_scoop_keeps_shared_bin():
    vfs, shell = cone_with_plant()
    run(vfs.write_file("/workspace/bin/mine.py", "print('mine')\n"))
    run(vfs.chmod("/workspace/bin/mine.py", 0o755))
    assert sh(shell, "mine; which mine") == ("mine\n/workspace/bin/mine.py\n", "", 0)
    # Inside the scoop, its own rights: /shared/bin is on its PATH, and its script is found
    # there (on CPython it is then refused: a scoop's Python runs only in a realm).
    out, err, code = sh(shell, "scoop a; echo $PATH; pgview")
    assert (out, code) == ("/workspace/bin:/shared/bin:/workspace/skills\n", 126)
    assert "no in-process sandbox" in err
    assert not vfs.exists("/workspace/owned")


def test_a_view_wider_than_a_scoop_is_guarded_as_the_cone_is():
    vfs, _ = cone_with_plant()
    wide = Shell(vfs.restrict(read=["/"], write=["/workspace"]))  # an agent's, say
    assert sh(wide, "echo $PATH; PATH=/shared/bin; pgview")[1].startswith(
        "sh: pgview: command not found (/shared/bin/pgview.py not run")
    assert not vfs.exists("/workspace/owned")
    # A view that writes no more than a scoop may is not: /shared/bin is on its PATH.
    narrow = Shell(vfs.restrict(read=["/"], write=["/shared/tmp"]))
    out, err, code = sh(narrow, "echo $PATH; pgview")
    assert (out, code) == ("/workspace/bin:/shared/bin:/workspace/skills\n", 126)
    assert "no in-process sandbox" in err  # found; a view's Python runs only in a realm


# --- B: nothing survives `exit` -------------------------------------------------------------


def test_nothing_defined_in_a_scoop_survives_exit_and_exit_ends_the_line():
    vfs = VFS.memory()
    shell = Shell(vfs)
    sh(shell, "g() { echo cone-g; }; alias ll='echo cone-ll'; KEEP=cone")
    before = sh(shell, "echo $PATH")[0]
    assert sh(shell, "scoop a")[2] == 0
    out, err, code = sh(shell, "f(){ echo hi; }; alias x=y; g() { echo scoop-g; }; "
                               "KEEP=scoop; NEW=1; set -e -u -o pipefail; PATH=/x; "
                               "exit; echo still-here")
    assert (out, err, code) == ("", "", 0)
    result = run(shell.run("echo $PATH; echo $KEEP; echo \"[${NEW-}]\"; echo $-; g; ll; "
                           "type f; alias x"))
    assert result.scoop is None
    assert result.stdout == f"{before}cone\n[]\n\ncone-g\ncone-ll\n"
    assert "f: not found" in result.stderr and "x: not found" in result.stderr
    assert sh(shell, "set -o | grep pipefail")[0].split() == ["pipefail", "off"]


def test_exit_with_a_status_leaves_the_scoop_with_it():
    shell = Shell(VFS.memory())
    sh(shell, "scoop a")
    result = run(shell.run("exit 3; echo no"))
    assert (result.stdout, result.code, result.scoop, result.cwd) == ("", 3, None, "/")
    # In a function or a subshell, exit ends only that: the scoop stays.
    sh(shell, "scoop a")
    assert run(shell.run("(exit 4); echo $?")).scoop == "a"
    assert run(shell.run("f() { exit 5; }; f")).scoop == "a"


# --- C: no host folder in a scoop on CPython ------------------------------------------------


def test_a_scoop_cannot_mount_a_host_folder_on_cpython(tmp_path):
    cone = VFS.memory()
    shell = Shell(cone, host_mounts=True)
    sh(shell, "scoop a")
    for where in ("/scoops/a/tmp/h", "/elsewhere"):
        out, err, code = sh(shell, f"mount {where} {tmp_path}")
        assert (out, code) == ("", 1)
        assert err.startswith(f"mount: cannot mount '{where}': Operation not permitted (")
        assert "Python has no in-process sandbox" in err
    assert cone.mounts() == []
    # A shell made on a restricted view directly is refused the same way.
    view_shell = Shell(run(cone.scoop("b")), host_mounts=True)
    assert "Operation not permitted" in sh(view_shell, f"mount /scoops/b/tmp/h {tmp_path}")[1]
    # The whole disk still mounts it.
    assert run(shell.run("exit")).scoop is None
    assert sh(shell, f"mount /m {tmp_path}")[2] == 0
    assert [m["path"] for m in cone.mounts()] == ["/m"]


class PickerHost:
    """A host like the browser's: the user picks the folder (no host path is named)."""

    def __init__(self) -> None:
        self.mounted: list[str] = []

    async def mount(self, path: str, *, read_only: bool, folder: str | None) -> dict[str, Any]:
        self.mounted.append(path)
        return {"name": "picked", "path": path, "readOnly": read_only}

    async def unmount(self, path: str) -> dict[str, Any]:
        return {}

    async def reconnect(self, path: str) -> dict[str, Any]:
        return {}


def test_a_picked_folder_mounts_in_a_scoop_only_where_the_scoop_writes():
    host = PickerHost()
    shell = Shell(VFS.memory(), host=host)
    sh(shell, "scoop a")
    assert "Permission denied" in sh(shell, "mount /elsewhere")[1]
    assert sh(shell, "mount /scoops/a/home/m") == (
        "mounted 'picked' at /scoops/a/home/m (read-write)\n", "", 0)
    assert host.mounted == ["/scoops/a/home/m"]
