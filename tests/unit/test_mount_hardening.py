"""A mounted host folder must not lead outside itself (docs/mounts.md, "Host folders").

Its content is untrusted (names from an archive, links in the folder, an agent's shell lines):
none of it may reach a host path outside the folder, and the mount's own bookkeeping (its
temporary files, its case handling) must not hide or delete a user's entries. Runs on CPython
and in Pyodide (MEMFS).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
from host_folder import code_of, make_folder, run

from py_vfs import VFS
from py_vfs.__main__ import main
from py_vfs.disk.content import CHUNK_SIZE
from py_vfs.mounts import BackendError, LocalBackend
from py_vfs.mounts.local import check_name
from py_vfs.shell import Shell


@pytest.fixture
def folder(tmp_path) -> Path:
    return make_folder(tmp_path)


def mounted(backend: LocalBackend) -> VFS:
    vfs = VFS.memory()
    run(vfs.mount("/h", backend))
    return vfs


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


# ------------------------------------------------------------ links in the host folder


@pytest.fixture
def linked(tmp_path, folder) -> Path:
    """Links in the folder: to a file and a directory outside it, to ``../..``, and one that
    stays inside (``alias`` -> ``src``)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    os.symlink(outside / "secret.txt", folder / "leak")
    os.symlink(outside, folder / "out")
    os.symlink("../..", folder / "up")
    os.symlink("src", folder / "alias")
    return outside


def test_links_leading_outside_are_not_followed_for_reads(tmp_path, folder, linked):
    vfs = mounted(LocalBackend(folder))
    through_up = f"/h/up/{tmp_path.name}/outside/secret.txt"
    for path in ("/h/leak", "/h/out/secret.txt", through_up):
        assert code_of(lambda p=path: vfs.read_file(p)) == "EACCES", path
        assert code_of(lambda p=path: vfs.stat(p)) == "EACCES", path
    assert code_of(lambda: vfs.readdir("/h/out")) == "EACCES"
    assert code_of(lambda: vfs.readdir("/h/up")) == "EACCES"
    # Listed (as empty files), so that the EACCES has a visible cause; never followed.
    assert vfs.readdir("/h") == ["README.md", "alias", "leak", "out", "src", "up"]
    assert vfs.readdir("/h/out/..") == vfs.readdir("/h")  # `..` after a link stays in the VFS
    # A link that stays inside the folder is followed as before.
    assert vfs.readdir("/h/alias") == ["main.py"]
    assert run(vfs.read_file("/h/alias/main.py")) == b"print('hi')\n"


def test_links_leading_outside_are_not_followed_for_writes(tmp_path, folder, linked):
    vfs = mounted(LocalBackend(folder))
    through_up = f"/h/up/{tmp_path.name}/outside"
    assert code_of(lambda: vfs.write_file("/h/leak", b"owned\n")) == "EACCES"
    assert code_of(lambda: vfs.append_file("/h/leak", b"owned\n")) == "EACCES"
    assert code_of(lambda: vfs.truncate("/h/leak")) == "EACCES"
    for directory in ("/h/out", through_up):
        assert code_of(lambda d=directory: vfs.write_file(f"{d}/new", b"x")) == "EACCES"
        assert code_of(lambda d=directory: vfs.mkdir(f"{d}/dir")) == "EACCES"
        assert code_of(lambda d=directory: vfs.rename("/h/README.md", f"{d}/R")) == "EACCES"
        assert code_of(lambda d=directory: vfs.rm(f"{d}/secret.txt")) == "EACCES"
    assert (linked / "secret.txt").read_text() == "secret\n"
    assert sorted(os.listdir(linked)) == ["secret.txt"]
    assert (folder / "leak").is_symlink() and (folder / "README.md").exists()
    run(vfs.write_file("/h/alias/new.py", b"inside\n"))  # a link inside: writes go through
    assert (folder / "src" / "new.py").read_text() == "inside\n"


# ------------------------------------------------------------ names the host would split


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "a\0b"])
@pytest.mark.parametrize("flavour", ["posix", "nt"])
def test_names_that_are_not_one_component_are_refused_on_every_host(name, flavour):
    with pytest.raises(BackendError) as info:
        check_name(name, flavour)
    assert info.value.code == "EINVAL"


@pytest.mark.parametrize("name", ["..\\..\\x", "C:\\x", "C:x", "\\\\server\\share", "a:stream"])
def test_separators_and_drives_are_refused_for_a_windows_host(tmp_path, folder, name):
    with pytest.raises(BackendError):
        check_name(name, "nt")
    check_name(name, "posix")  # plain names on a POSIX host
    vfs = mounted(LocalBackend(folder, flavour="nt"))
    before = sorted(os.listdir(tmp_path)), sorted(os.listdir(folder))
    assert code_of(lambda: vfs.write_file(f"/h/{name}", b"x")) == "EINVAL"
    assert code_of(lambda: vfs.mkdir(f"/h/{name}")) == "EINVAL"
    assert code_of(lambda: vfs.rename("/h/README.md", f"/h/{name}")) == "EINVAL"
    assert code_of(lambda: vfs.read_file(f"/h/{name}")) == "EINVAL"
    assert (sorted(os.listdir(tmp_path)), sorted(os.listdir(folder))) == before


# ------------------------------------------------------------ the mount's temporary files


def test_a_users_file_named_like_a_temporary_is_listed_and_readable(folder):
    (folder / "x.pyvfs-tmp").write_text("mine\n")
    (folder / ".README.md.0123abcd.pyvfs-tmp").write_text("mine too\n")
    vfs = mounted(LocalBackend(folder))
    assert vfs.readdir("/h") == [".README.md.0123abcd.pyvfs-tmp", "README.md", "src",
                                 "x.pyvfs-tmp"]
    assert run(vfs.read_file("/h/x.pyvfs-tmp")) == b"mine\n"
    run(vfs.write_file("/h/x.pyvfs-tmp", b"changed\n"))  # a write beside it leaves it listed
    assert (folder / "x.pyvfs-tmp").read_text() == "changed\n"


def test_a_write_in_flight_hides_only_its_own_temporary(folder):
    vfs = mounted(LocalBackend(folder))

    async def write_and_list() -> tuple[list[str], list[str]]:
        writer = vfs.stream_writer("/h/new.bin")
        await writer.write(b"x" * (CHUNK_SIZE + 1))
        seen = vfs.readdir("/h"), sorted(os.listdir(folder))
        await writer.close()
        return seen

    listed, on_host = run(write_and_list())
    assert listed == ["README.md", "src"]
    assert len(on_host) == 3 and any(name.startswith(".pyvfs-") for name in on_host)
    assert sorted(os.listdir(folder)) == vfs.readdir("/h") == ["README.md", "new.bin", "src"]


# ------------------------------------------------------------ case-insensitive hosts


class CaseInsensitiveFolder(LocalBackend):
    """A host folder as macOS and Windows see theirs by default, on this case-sensitive machine:
    a name finds an existing entry spelled in another case (the rest of the code path, and the
    real directory, are the real ones)."""

    def host(self, rel):
        spelled, path = [], self.root
        for name in rel:
            with contextlib.suppress(OSError, StopIteration):
                name = next(n for n in os.listdir(path) if n.casefold() == name.casefold())
            spelled.append(name)
            path = os.path.join(path, name)
        return super().host(tuple(spelled))


def test_a_case_only_rename_renames_on_a_case_insensitive_host(folder):
    vfs = mounted(CaseInsensitiveFolder(folder))
    run(vfs.mkdir("/h/empty"))
    run(vfs.rename("/h/empty", "/h/EMPTY"))
    run(vfs.rename("/h/README.md", "/h/readme.md"))
    run(vfs.rename("/h/src", "/h/Src"))
    assert sorted(os.listdir(folder)) == ["EMPTY", "Src", "readme.md"]
    assert (folder / "readme.md").read_text() == "# project\n"
    assert os.listdir(folder / "Src") == ["main.py"]


def test_a_case_only_rename_on_a_read_only_mount_is_erofs(folder):
    vfs = VFS.memory()
    run(vfs.mount("/h", CaseInsensitiveFolder(folder), read_only=True))
    assert code_of(lambda: vfs.rename("/h/README.md", "/h/readme.md")) == "EROFS"
    assert sorted(os.listdir(folder)) == ["README.md", "src"]
