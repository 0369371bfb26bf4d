"""The file-tree commands with the flags a user types daily: ls, ln, readlink, realpath, stat,
chmod, touch, mkdir, rm, rmdir, cp and mv. Expected outputs are GNU coreutils 9.1's for the
same tree (checked by hand against the real tools; the tests do not need them)."""

from __future__ import annotations

import errno
import os

import pytest
from shell_session import Session, fail

from py_vfs.shell.pipes import Emit


def terminal(sh: Session, line: str) -> str:
    """What a terminal shows for ``line`` (stdout is a tty there)."""
    shown = bytearray()

    async def emit(data: bytes) -> None:
        shown.extend(data)

    result = sh.runner.run(sh.shell.run(line, stdout=Emit(emit, isatty=True)))
    assert result.code == 0, result
    return shown.decode()


# ------------------------------------------------------------------ ls


def test_ls_one_per_line_when_piped_and_in_columns_on_a_terminal(sh):
    sh.ok("touch " + " ".join(f"file{i:02}" for i in range(30)))
    assert sh.ok("ls") == "".join(f"file{i:02}\n" for i in range(30))
    lines = terminal(sh, "ls").splitlines()
    # GNU ls at 80 columns: 30 names of 6 characters in 10 columns of 3 rows, filled column
    # by column, padded with tabs (coreutils 9.1's default tab size, 8).
    assert lines == ["\t".join(f"file{i:02}" for i in range(row, 30, 3)) for row in range(3)]
    assert terminal(sh, "ls -1").splitlines()[:2] == ["file00", "file01"]


def test_ls_colors_only_on_a_terminal_unless_asked(sh):
    sh.ok("mkdir d && touch x f && chmod +x x")
    sh.symlink("f", "/l")
    colored = "\033[0m\033[01;34md\033[0m\nf\n\033[01;36ml\033[0m\n\033[01;32mx\033[0m\n"
    assert terminal(sh, "ls -1") == colored
    assert sh.ok("ls") == "d\nf\nl\nx\n"
    assert sh.ok("ls --color=always") == colored
    assert terminal(sh, "ls -1 --color=never") == "d\nf\nl\nx\n"
    fail(sh("ls --color=sometimes"), 2, "ls: invalid argument 'sometimes' for '--color'\n"
         "Try 'ls --help' for more information.\n")


def test_ls_sorts_by_time_size_and_reverse(sh):
    sh.write("/big", "x" * 3000)
    sh.write("/small", "x")
    sh.write("/mid", "x" * 100)
    sh.set_mtime("/big", "2024-01-01 00:00")
    sh.set_mtime("/small", "2024-03-01 00:00")
    sh.set_mtime("/mid", "2024-02-01 00:00")
    assert sh.ok("ls -t") == "small\nmid\nbig\n"
    assert sh.ok("ls -S") == "big\nmid\nsmall\n"
    assert sh.ok("ls -Sr") == "small\nmid\nbig\n"
    assert sh.ok("ls -r") == "small\nmid\nbig\n"
    assert sh.ok("ls -St") == "small\nmid\nbig\n"  # the last of -S and -t wins


def test_ls_recursive_almost_all_and_classify(sh):
    sh.ok("mkdir -p a/b && touch a/.h a/f a/b/g x && chmod 755 x")
    sh.symlink("a", "/l")
    assert sh.ok("ls -R a") == "a:\nb\nf\n\na/b:\ng\n"
    assert sh.ok("ls -A a") == ".h\nb\nf\n"
    assert sh.ok("ls -a a") == ".\n..\n.h\nb\nf\n"
    assert sh.ok("ls -F") == "a/\nl@\nx*\n"


@pytest.mark.usefixtures("utc")
def test_ls_long_human_sizes(sh):
    sh.write("/k", "x" * 9000)
    sh.write("/b", "x" * 10)
    sh.set_mtime("/k", "2024-01-02 03:04")
    sh.set_mtime("/b", "2024-01-02 03:04")
    assert sh.ok("ls -lh") == (
        "total 10K\n"  # 1K blocks of the sizes (GNU counts its file system's blocks)
        "-rw-r--r-- 1 user user   10 Jan  2  2024 b\n"
        "-rw-r--r-- 1 user user 8.8K Jan  2  2024 k\n")


def test_ls_exit_status_is_2_for_a_missing_operand(sh):
    result = sh("ls nope")
    fail(result, 2, "ls: cannot access 'nope': No such file or directory\n")


# ------------------------------------------------------------------ links


def test_ln_s_makes_links_as_typed(sh):
    sh.ok("mkdir d && touch f")
    assert sh.ok("ln -sv f l") == "'l' -> 'f'\n"
    assert sh.vfs.readlink("/l") == "f"
    sh.ok("ln -s ../f d/")  # into a directory, named after the target
    assert sh.vfs.readlink("/d/f") == "../f"
    fail(sh("ln -s f l"), 1, "ln: failed to create symbolic link 'l': File exists\n")
    sh.ok("ln -sf d l")
    assert sh.vfs.readlink("/l") == "d"
    # l is a link to a directory now: without -n it is entered, with -n it is replaced.
    sh.ok("ln -s x l")
    assert sh.vfs.readlink("/d/x") == "x" and sh.vfs.readlink("/l") == "d"
    sh.ok("ln -sfn f l")
    assert sh.vfs.readlink("/l") == "f"
    fail(sh("ln -s a b c"), 1, "ln: target 'c': No such file or directory\n")


def test_ln_without_s_says_there_are_no_hard_links(sh):
    sh.ok("touch a")
    fail(sh("ln a b"), 1,
         "ln: failed to create hard link 'b' => 'a': Operation not permitted\n")
    assert not sh.vfs.exists("/b")


def test_readlink_and_realpath(sh):
    sh.ok("mkdir -p d/e && touch d/e/f")
    sh.symlink("d/e", "/l")
    sh.symlink("../e/f", "/d/e/up")
    sh.symlink("loop", "/loop")
    assert sh.ok("readlink l") == "d/e\n"
    assert sh.ok("readlink -f l/up") == "/d/e/f\n"
    assert sh.ok("realpath l/up l/./../e") == "/d/e/f\n/d/e\n"  # physical: l/.. is d
    result = sh("readlink d")
    assert (result.code, result.stdout, result.stderr) == (1, "", "")
    assert sh.ok("readlink -f nope") == "/nope\n"
    assert sh("readlink -f nope/x").code == 1
    assert sh("readlink -e nope").code == 1
    assert sh.ok("readlink -m nope/x/../y") == "/nope/y\n"
    assert sh.ok("realpath -s l/up") == "/l/up\n"
    assert sh.ok("realpath --relative-to=d/e l/up /") == "f\n../..\n"
    fail(sh("realpath nope/x"), 1, "realpath: nope/x: No such file or directory\n")
    # glibc says "Too many levels of symbolic links"; Pyodide's Emscripten "Symbolic link loop".
    fail(sh("realpath loop"), 1, f"realpath: loop: {os.strerror(errno.ELOOP)}\n")


# ------------------------------------------------------------------ attributes


@pytest.mark.usefixtures("utc")
def test_stat_format_directives(sh):
    sh.write("/f", "hello")
    sh.set_mtime("/f", "2024-01-02 03:04")
    sh.symlink("f", "/l")
    assert sh.ok("stat -c '%n %s %a %A %F %Y %h %U' f") == (
        "f 5 644 -rw-r--r-- regular file 1704164640 1 user\n")
    assert sh.ok("stat -c %y f") == "2024-01-02 03:04:00.000000000 +0000\n"
    assert sh.ok("stat -c '%N %F' l") == "'l' -> 'f' symbolic link\n"
    assert sh.ok("stat -L -c %F l") == "regular file\n"
    assert sh.ok("stat --printf='%s\\n' f") == "5\n"


@pytest.mark.parametrize(("mode", "before", "after"), [
    ("755", 0o644, 0o755), ("u+x", 0o644, 0o744), ("go-r", 0o644, 0o600),
    ("a=r", 0o755, 0o444), ("u+x,go-w", 0o666, 0o744), ("+x", 0o644, 0o755),
    ("o=u", 0o640, 0o646), ("g+X", 0o644, 0o644), ("a-w", 0o666, 0o444),
])
def test_chmod_octal_and_symbolic(sh, mode, before, after):
    sh.write("/f", "x")
    sh.runner.run(sh.vfs.chmod("/f", before))
    sh.ok(f"chmod {mode} f")
    assert sh.vfs.stat("/f").mode & 0o7777 == after


def test_chmod_recursive_verbose_and_errors(sh):
    sh.ok("mkdir -p d/e && touch d/f d/e/g")
    assert sh.ok("chmod -R go-rx d") == ""
    assert {sh.vfs.stat(p).mode & 0o777 for p in ("/d", "/d/e")} == {0o700}
    assert {sh.vfs.stat(p).mode & 0o777 for p in ("/d/f", "/d/e/g")} == {0o600}
    assert sh.ok("chmod -c 600 d/f") == ""  # -c: only what changed
    assert sh.ok("chmod -v 644 d/f") == (
        "mode of 'd/f' changed from 0600 (rw-------) to 0644 (rw-r--r--)\n")
    # Without who, the umask (022) keeps bits: GNU warns and exits 1.
    sh.ok("chmod 666 d/f")
    fail(sh("chmod -w d/f"), 1, "chmod: d/f: new permissions are r--rw-rw-, not r--r--r--\n")
    fail(sh("chmod 8 d/f"), 1,
         "chmod: invalid mode: '8'\nTry 'chmod --help' for more information.\n")
    fail(sh("chmod 644 nope d/f"), 1,
         "chmod: cannot access 'nope': No such file or directory\n")


@pytest.mark.usefixtures("utc")
def test_touch_dates_references_and_no_create(sh):
    sh.ok("touch -d '2024-01-02 03:04:05' f")
    assert sh.vfs.stat("/f").mtime_ms == 1704164645000
    sh.ok("touch -d @0 -m f")
    assert (sh.vfs.stat("/f").mtime_ms, sh.vfs.stat("/f").atime_ms) == (0, 1704164645000)
    sh.ok("touch -r f g")
    assert sh.vfs.stat("/g").mtime_ms == 0
    sh.ok("touch -t 202401020304.05 g")
    assert sh.vfs.stat("/g").mtime_ms == 1704164645000
    sh.ok("touch -c nope")
    assert not sh.vfs.exists("/nope")
    fail(sh("touch -d tomorrowish f"), 1, "touch: invalid date format 'tomorrowish'\n")
    fail(sh("touch nope/f"), 1, "touch: cannot touch 'nope/f': No such file or directory\n")


# ------------------------------------------------------------------ mkdir rm rmdir


def test_mkdir_verbose_parents_and_mode(sh):
    assert sh.ok("mkdir -pv a/b/c") == (
        "mkdir: created directory 'a'\nmkdir: created directory 'a/b'\n"
        "mkdir: created directory 'a/b/c'\n")
    assert sh.ok("mkdir -pv a/b") == ""
    sh.ok("mkdir -m 700 m && mkdir -m u+x,g=w mm")
    assert (sh.vfs.stat("/m").mode & 0o777, sh.vfs.stat("/mm").mode & 0o777) == (0o700, 0o727)
    fail(sh("mkdir m"), 1, "mkdir: cannot create directory 'm': File exists\n")


def test_rm_verbose_and_d(sh):
    sh.ok("mkdir -p a/b/c e && touch a/b/f a/z")
    assert sh.ok("rm -rv a") == (
        "removed directory 'a/b/c'\nremoved 'a/b/f'\nremoved directory 'a/b'\n"
        "removed 'a/z'\nremoved directory 'a'\n")
    assert sh.ok("rm -dv e") == "removed directory 'e'\n"
    sh.ok("mkdir -p e/f")
    fail(sh("rm -d e"), 1, "rm: cannot remove 'e': Directory not empty\n")
    fail(sh("rm e"), 1, "rm: cannot remove 'e': Is a directory\n")
    fail(sh("rm -i e"), 2, "rm: -i is not supported: the shell cannot ask a question yet\n")


def test_rmdir_p_removes_the_parents(sh):
    sh.ok("mkdir -p p/q/r && mkdir -p s/t && touch s/x")
    assert sh.ok("rmdir -pv p/q/r") == (
        "rmdir: removing directory, 'p/q/r'\nrmdir: removing directory, 'p/q'\n"
        "rmdir: removing directory, 'p'\n")
    assert not sh.vfs.exists("/p")
    # GNU names a parent it goes on to as a directory.
    fail(sh("rmdir -p s/t"), 1, "rmdir: failed to remove directory 's': Directory not empty\n")
    assert sh.vfs.readdir("/s") == ["x"]


# ------------------------------------------------------------------ cp mv


@pytest.mark.usefixtures("utc")
def test_cp_preserve_no_clobber_and_verbose(sh):
    sh.ok("mkdir -p d/e && touch d/e/f && chmod 700 d/e")
    sh.set_mtime("/d/e/f", "2024-01-02 03:04")
    sh.set_mtime("/d/e", "2024-01-02 03:04")
    assert sh.ok("cp -av d c") == "'d' -> 'c'\n'd/e' -> 'c/e'\n'd/e/f' -> 'c/e/f'\n"
    assert sh.vfs.stat("/c/e/f").mtime_ms == sh.vfs.stat("/d/e/f").mtime_ms
    assert sh.vfs.stat("/c/e").mtime_ms == sh.vfs.stat("/d/e").mtime_ms
    assert sh.vfs.stat("/c/e").mode & 0o777 == 0o700
    sh.write("/a", "new")
    sh.write("/b", "old")
    assert sh.ok("cp -n a b") == ""
    assert sh.text("/b") == "old"
    sh.ok("cp -nf a b")
    assert sh.text("/b") == "new"


def test_mv_no_clobber_and_verbose(sh):
    sh.write("/a", "a")
    sh.write("/b", "b")
    assert sh.ok("mv -n a b") == ""
    assert (sh.text("/a"), sh.text("/b")) == ("a", "b")
    assert sh.ok("mv -v a c") == "renamed 'a' -> 'c'\n"
    fail(sh("mv -i c b"), 2, "mv: -i is not supported: the shell cannot ask a question yet\n")


# ------------------------------------------------------------------ du


def test_du_counts_apparent_sizes_as_gnu_du_apparent_size(sh):
    # GNU `du --apparent-size` on the same tree (directories are 4096 bytes there and here).
    sh.ok("mkdir -p d/e emp && touch a.txt d/x.txt d/e/y && echo hello > d/big")
    sh.symlink("d", "/ld")
    assert sh.ok("du -a .") == (
        "0\t./a.txt\n1\t./d/big\n0\t./d/e/y\n4\t./d/e\n0\t./d/x.txt\n9\t./d\n4\t./emp\n"
        "1\t./ld\n17\t.\n")
    assert sh.ok("du -sh d") == "8.1K\td\n"
    assert sh.ok("du -c -d 1 d emp") == "4\td/e\n9\td\n4\temp\n13\ttotal\n"
    assert sh.ok("du -b d/big") == "6\td/big\n"
    result = sh("du nope d/e")
    assert result.stdout == "4\td/e\n"
    fail(result, 1, "du: cannot access 'nope': No such file or directory\n")
