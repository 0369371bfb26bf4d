"""A mounted host folder must not lead outside itself (docs/mounts.md, "Host folders").

Its content is untrusted (names from an archive, links in the folder, an agent's shell lines):
none of it may reach a host path outside the folder, and the mount's own bookkeeping (its
temporary files, its case handling) must not hide or delete a user's entries. Runs on CPython
and in Pyodide (MEMFS).
"""

from __future__ import annotations

import asyncio

import pytest

from py_vfs import VFS
from py_vfs.__main__ import main
from py_vfs.shell import Shell


def run(coro):
    return asyncio.run(coro)


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "folder"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / "README.md").write_text("# project\n")
    return root


# ------------------------------------------------------------ host mounts are opt-in


def test_a_default_shell_cannot_mount_a_host_folder(folder):
    vfs = VFS.memory()
    shell = Shell(vfs)
    for line in (f"mount /h {folder}", "mount --read-only /etc2 /etc", "mount /h"):
        result = run(shell.run(line))
        assert result.code == 1, (line, result.stderr)
        assert "Permission denied" in result.stderr, result.stderr
        assert "python -m py_vfs shell" in result.stderr, result.stderr
    assert vfs.mounts() == []
    assert run(Shell(vfs, host_mounts=True).run(f"mount /h {folder}")).code == 0


def test_the_command_line_shell_mounts_host_folders(tmp_path, folder, capsys):
    disk = str(tmp_path / "disk.sqlite")
    assert main(["shell", "--disk", disk, "-c", f"mount /h {folder} && cat /h/README.md"]) == 0
    assert capsys.readouterr().out.endswith("# project\n")
