"""zip, unzip and tar in the shell: what they make, what they list, and the hostile archives
they refuse (every name, size and link target in an archive is untrusted: no member lands
outside the target directory). Listings are checked against Info-ZIP 3.0/6.0 and GNU tar 1.34
on the same tree, by hand (the tests do not need the tools)."""

from __future__ import annotations

import asyncio
import io
import tarfile
import zipfile

import pytest
from shell_session import Session, fail

from py_vfs import VFS
from py_vfs.shell import Shell


@pytest.fixture
def sh(sh):
    sh.ok("mkdir -p d/e && touch a.txt d/x.txt d/e/y && echo hello > d/big && chmod 700 d/e")
    sh.symlink("e", "/d/le")
    return sh


def same_tree(sh: Session, one: str, other: str) -> None:
    """Both trees hold the same names, kinds, modes, contents and link targets."""
    def listing(top: str) -> list[tuple]:
        rows = []
        for path in _all(sh.vfs, top):
            node = sh.vfs.lstat(path)
            content = sh.read(path) if node.type == "file" else (
                sh.vfs.readlink(path) if node.type == "symlink" else None)
            rows.append((path[len(top):], node.type, node.mode & 0o777, content))
        return rows
    assert listing(one) == listing(other)


def _all(vfs: VFS, top: str) -> list[str]:
    found, stack = [], [top]
    while stack:
        path = stack.pop()
        found.append(path)
        if vfs.lstat(path).type == "directory":
            stack.extend(f"{path}/{name}" for name in reversed(vfs.readdir(path)))
    return found


# ------------------------------------------------------------------ zip and unzip


def test_zip_then_unzip_gives_the_tree_back(sh):
    assert sh.ok("zip -r a.zip d a.txt") == (
        "  adding: d/ (stored 0%)\n  adding: d/big (deflated 0%)\n  adding: d/e/ (stored 0%)\n"
        "  adding: d/e/y (stored 0%)\n  adding: d/le (stored 0%)\n"
        "  adding: d/x.txt (stored 0%)\n  adding: a.txt (stored 0%)\n")
    names = zipfile.ZipFile(io.BytesIO(sh.read("/a.zip"))).namelist()
    assert names == ["d/", "d/big", "d/e/", "d/e/y", "d/le", "d/x.txt", "a.txt"]
    out = sh.ok("unzip -d u a.zip")
    assert out.startswith("Archive:  a.zip\n")
    assert "  inflating: d/big" in out and "   creating: d/e/\n" in out
    same_tree(sh, "/d", "/u/d")
    listed = sh.ok("unzip -l a.zip").splitlines()
    assert listed[1:3] == ["  Length      Date    Time    Name",
                           "---------  ---------- -----   ----"]
    assert listed[-1] == "        7                     7 files"


def test_unzip_replaces_only_with_o(sh):
    sh.ok("zip -q a.zip a.txt")
    sh.write("/a.txt", "changed")
    result = sh("unzip -q a.zip")
    fail(result, 1, "unzip: 'a.txt': exists; not replaced (-o replaces)\n")
    assert sh.text("/a.txt") == "changed"
    sh.ok("unzip -oq a.zip")
    assert sh.text("/a.txt") == ""


def test_unzip_p_writes_members_to_stdout(sh):
    sh.write("/a.txt", "alpha\n")
    sh.ok("zip -q o.zip a.txt d/big")
    assert sh.ok("unzip -p o.zip a.txt") == "alpha\n"
    assert sh.ok("unzip -p o.zip") == "alpha\nhello\n"
    fail(sh("unzip -p o.zip nope"), 11, "unzip: caution: filename not matched:  nope\n")


def test_zip_and_unzip_errors(sh):
    result = sh("zip x.zip nope")
    assert result.code == 12 and not sh.vfs.exists("/x.zip")
    fail(sh("unzip nope.zip"), 9,
         "unzip:  cannot find or open nope.zip, nope.zip.zip or nope.zip.ZIP.\n")


def zip_with(sh: Session, members: list[tuple[str, bytes, int]]) -> None:
    """/evil.zip holding (name, data, unix mode with type) members, as a hostile tool would."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = mode << 16
            archive.writestr(info, data)
    sh.write("/evil.zip", buffer.getvalue())


@pytest.mark.parametrize("name", ["../escape", "/abs", "a/../../escape", "c:/x", "a\\..\\x"])
def test_unzip_refuses_names_that_leave_the_target(sh, name):
    zip_with(sh, [(name, b"pwned", 0o100644), ("ok.txt", b"fine", 0o100644)])
    result = sh("unzip -q -d /in evil.zip")
    assert result.code in (1, 3) and result.stderr
    assert not sh.vfs.exists("/escape") and not sh.vfs.exists("/abs")
    assert sh.vfs.readdir("/") == ["a.txt", "d", "evil.zip"] + (
        ["in"] if sh.vfs.exists("/in") else [])


def test_unzip_refuses_links_out_and_writes_through_links(sh):
    zip_with(sh, [("out", b"../../d", 0o120777), ("out/x", b"pwned", 0o100644),
                  ("abs", b"/d", 0o120777), ("fine", b"sub", 0o120777)])
    result = sh("unzip -q -d /in evil.zip")
    assert result.code in (1, 3)
    assert not sh.vfs.exists("/d/x") and not sh.vfs.exists("/in/out")
    assert not sh.vfs.exists("/in/abs")
    # A link already on the disk is never written through either.
    sh.ok("mkdir -p in")
    sh.symlink("/d", "/in/there")
    zip_with(sh, [("there/x", b"pwned", 0o100644)])
    result = sh("unzip -q -o -d /in evil.zip")
    assert result.code == 1 and "below the symlink 'there'" in result.stderr
    assert not sh.vfs.exists("/d/x")


def test_unzip_refuses_a_bomb_before_writing(sh):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(3):
            archive.writestr(f"zero{i}", bytes(30 * 1024 * 1024))
    sh.write("/bomb.zip", buffer.getvalue())
    result = sh("unzip -q -d /in bomb.zip")
    assert (result.code == 3 and "a zip bomb?" in result.stderr) or "bomb" in result.stderr
    assert not sh.vfs.exists("/in/zero0")


# ------------------------------------------------------------------ tar


def test_tar_create_list_extract(sh):
    assert sh.ok("tar -cvf a.tar d a.txt") == "d/\nd/big\nd/e/\nd/e/y\nd/le\nd/x.txt\na.txt\n"
    with tarfile.open(fileobj=io.BytesIO(sh.read("/a.tar"))) as archive:
        members = archive.getnames()
    assert members == ["d", "d/big", "d/e", "d/e/y", "d/le", "d/x.txt", "a.txt"]
    assert len(sh.read("/a.tar")) % 10240 == 0  # whole records, as GNU tar writes
    assert sh.ok("tar -tvf a.tar").splitlines()[4].startswith(
        "lrwxrwxrwx user/user         0 ")
    assert sh.ok("tar -tvf a.tar").splitlines()[4].endswith(" d/le -> e")
    sh.ok("mkdir t && tar -xf a.tar -C t")
    same_tree(sh, "/d", "/t/d")
    assert sh.vfs.stat("/t/d/e").mode & 0o777 == 0o700


def test_tar_gzip_old_style_and_pipes(sh):
    result = sh("tar czf a.tgz /d")
    assert (result.code, result.stderr) == (0, "tar: Removing leading `/' from member names\n")
    assert sh.read("/a.tgz")[:2] == b"\x1f\x8b"
    assert sh.ok("tar tzf a.tgz") == "d/\nd/big\nd/e/\nd/e/y\nd/le\nd/x.txt\n"
    assert sh.ok("tar -tf a.tgz") == sh.ok("tar tzf a.tgz")  # compression is detected
    sh.ok("tar -cf - d/e > e.tar")  # -f -: the archive goes to standard output
    assert sh.ok("tar -tf e.tar") == "d/e/\nd/e/y\n"
    sh.ok("cd d && tar cf ../dot.tar .")
    assert sh.ok("tar tf /dot.tar").splitlines()[:2] == ["./", "./big"]


def test_tar_errors(sh):
    fail(sh("tar -xf nope.tar"), 2, "tar: nope.tar: Cannot open: No such file or directory\n"
                                   "tar: Error is not recoverable: exiting now\n")
    fail(sh("tar -cf z.tar nope"), 2, "tar: nope: Cannot stat: No such file or directory\n"
                                     "tar: Exiting with failure status due to previous errors\n")
    fail(sh("tar -tf a.txt"), 2, "tar: This does not look like a tar archive\n"
                                "tar: Exiting with failure status due to previous errors\n")


def tar_with(sh: Session, members: list[tarfile.TarInfo], data: bytes = b"pwned") -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for info in members:
            archive.addfile(info, io.BytesIO(data) if info.isfile() else None)
    sh.write("/evil.tar", buffer.getvalue())


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    info.size = 5 if kind == tarfile.REGTYPE else 0
    return info


def test_tar_refuses_members_that_would_land_outside(sh):
    sh.ok("mkdir in")
    tar_with(sh, [member("../escape"), member("a/../../escape"),
                  member("up", tarfile.SYMTYPE, "../d"), member("up/x"),
                  member("abs", tarfile.SYMTYPE, "/d"), member("hard", tarfile.LNKTYPE, "a.txt"),
                  member("/rooted"), member("ok")])
    result = sh("tar -xf evil.tar -C in")
    assert result.code == 2
    assert "Exiting with failure status due to previous errors" in result.stderr
    made = sh.vfs.readdir("/in")
    assert {"ok", "rooted"} <= set(made)  # a leading / is stripped, as GNU tar does
    assert not {"abs", "hard", "escape"} & set(made)
    assert sh.vfs.lstat("/in/up").type == "directory"  # the link was refused, not made
    assert not sh.vfs.exists("/escape") and not sh.vfs.exists("/d/x")


def test_tar_in_a_scoop_stays_in_its_view():
    cone = VFS.memory()
    runner = asyncio.Runner()
    try:
        runner.run(cone.write_file("/secret", "cone only"))
        shell = Shell(cone)
        runner.run(shell.run("scoop alpha"))
        made = runner.run(shell.run("mkdir d && echo hi > d/f && tar -czf d.tgz d /secret"))
        assert made.code == 2 and "secret: Cannot stat" in made.stderr
        listed = runner.run(shell.run("mkdir x && tar -xzf d.tgz -C x && find x"))
        assert listed.stdout == "x\nx/d\nx/d/f\n"
        outside = runner.run(shell.run("tar -xzf d.tgz -C /"))
        assert outside.code != 0 and not cone.exists("/d")
        assert runner.run(cone.read_file("/scoops/alpha/workspace/x/d/f")) == b"hi\n"
    finally:
        runner.close()


def test_find_du_tar_and_unzip_on_a_mounted_folder(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("print('a')\n")
    (tmp_path / "notes.txt").write_text("n\n")
    vfs = VFS.memory()
    runner = asyncio.Runner()
    try:
        shell = Shell(vfs, host_mounts=True)

        def ok(line: str) -> str:
            result = runner.run(shell.run(line))
            assert (result.code, result.stderr) == (0, ""), result
            return result.stdout

        ok(f"mount /m {tmp_path}")
        assert ok("find /m -type f") == "/m/notes.txt\n/m/src/a.py\n"
        assert ok("du -s /m/src").endswith("\t/m/src\n")
        ok("tar -czf /a.tgz -C /m . && zip -qr /m/back.zip /m/src")
        assert ok("tar -tzf /a.tgz") == "./\n./notes.txt\n./src/\n./src/a.py\n"
        ok("mkdir /out && tar -xzf /a.tgz -C /out && unzip -q -d /m/un /m/back.zip")
        assert runner.run(vfs.read_file("/out/src/a.py")) == b"print('a')\n"
        assert (tmp_path / "un" / "m" / "src" / "a.py").read_text() == "print('a')\n"
    finally:
        runner.close()
