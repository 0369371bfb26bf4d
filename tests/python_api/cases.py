"""Python's own file API, case by case: each case is a small function over a fresh directory
``d`` holding the same tree; its outcome (its value, or its exception's class, errno and paths)
is normalized (``d`` shown as ``<d>``) so that a run on a real Linux directory and a run on the
VFS (py_vfs/pyhost) can be compared one to one (tests/unit/test_python_api.py in CPython,
tests/e2e/test_python_api.py in the page, where this file runs as a script and prints JSON).

Self-contained on purpose: in the page it is run by ``python FILE`` from the disk."""

import csv
import errno
import glob
import json
import os
import pathlib
import shutil
import stat
import sys
import zipfile

CASES = []


def case(function):
    """Registers a case."""
    CASES.append(function)
    return function


def make_tree(d):
    """The tree every case starts from."""
    os.makedirs(os.path.join(d, "sub", "deep"))
    os.mkdir(os.path.join(d, "empty"))
    with open(os.path.join(d, "a.txt"), "w") as f:
        f.write("hello\nworld\n")
    with open(os.path.join(d, "b.bin"), "wb") as f:
        f.write(bytes(range(256)) * 4)
    with open(os.path.join(d, "sub", "c.txt"), "w") as f:
        f.write("c")
    with open(os.path.join(d, "sub", "deep", "e.txt"), "w") as f:
        f.write("e")
    os.symlink("a.txt", os.path.join(d, "link_a"))
    os.symlink("sub", os.path.join(d, "link_sub"))
    os.symlink("nowhere", os.path.join(d, "dangling"))
    os.utime(os.path.join(d, "a.txt"), (1_600_000_000, 1_600_000_000))


def j(d, *names):
    return os.path.join(d, *names)


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def opened(path, *args, **kwargs):
    """Opens and closes ``path``: the file's mode, or the error opening raises."""
    with open(path, *args, **kwargs) as f:
        return f.mode


def tree(d):
    """Every path under ``d`` with its kind (and a file's content), sorted."""
    found = []
    for root, dirs, files in os.walk(d):
        dirs.sort()
        for name in sorted(dirs + files):
            path = os.path.join(root, name)
            kind = "l" if os.path.islink(path) else "d" if os.path.isdir(path) else "f"
            found.append([os.path.relpath(path, d), kind,
                          read(path, "rb").hex() if kind == "f" else None])
    return sorted(found)


def kind_of(mode):
    return "d" if stat.S_ISDIR(mode) else "l" if stat.S_ISLNK(mode) else "f" if stat.S_ISREG(
        mode) else "?"


# ------------------------------------------------------------------ open(): reading
case(lambda d: read(j(d, "a.txt")))
case(lambda d: read(j(d, "b.bin"), "rb")[250:260].hex())
case(lambda d: read(j(d, "link_a")))
case(lambda d: read(j(d, "missing.txt")))
case(lambda d: read(j(d, "sub")))
case(lambda d: read(j(d, "a.txt", "x")))
case(lambda d: read(j(d, "dangling")))
case(lambda d: read(j(d, "nodir", "x.txt")))
case(lambda d: read(j(d, "link_sub", "c.txt")))


@case
def readline_iteration(d):
    with open(j(d, "a.txt")) as f:
        return [line for line in f]


@case
def readlines_and_tell(d):
    with open(j(d, "a.txt"), "rb") as f:
        first = f.readline()
        return [first.decode(), f.tell(), f.readlines()[0].decode()]


@case
def seek_and_read(d):
    with open(j(d, "b.bin"), "rb") as f:
        f.seek(1000)
        tail = f.read()
        f.seek(-10, os.SEEK_END)
        return [tail.hex(), f.read(3).hex(), f.tell(), f.seek(0, os.SEEK_CUR)]


@case
def read_sizes(d):
    with open(j(d, "b.bin"), "rb", buffering=0) as f:
        return [len(f.read(100)), len(f.read(2000)), len(f.read(5)), f.read(5)]


@case
def text_seek_tell(d):
    with open(j(d, "a.txt")) as f:
        f.readline()
        pos = f.tell()
        rest = f.read()
        f.seek(pos)
        return [pos, rest, f.read()]


@case
def context_manager_closes(d):
    with open(j(d, "a.txt")) as f:
        pass
    try:
        f.read()
    except ValueError:
        return ["closed", f.closed]


@case
def file_attributes(d):
    with open(j(d, "a.txt"), "rb") as f:
        return [f.readable(), f.writable(), f.seekable(), f.mode, os.path.basename(f.name)]


# ------------------------------------------------------------------ open(): writing
@case
def write_new(d):
    with open(j(d, "new.txt"), "w") as f:
        f.write("one\ntwo\n")
    return read(j(d, "new.txt"))


@case
def write_replaces(d):
    with open(j(d, "a.txt"), "w") as f:
        f.write("new")
    return read(j(d, "a.txt"))


@case
def write_binary(d):
    with open(j(d, "n.bin"), "wb") as f:
        f.write(b"\x00\x01" * 100_000)
    return [os.path.getsize(j(d, "n.bin")), read(j(d, "n.bin"), "rb")[:4].hex()]


@case
def append(d):
    with open(j(d, "a.txt"), "a") as f:
        f.write("more\n")
    with open(j(d, "fresh.txt"), "a") as f:
        f.write("x")
    return [read(j(d, "a.txt")), read(j(d, "fresh.txt"))]


@case
def exclusive(d):
    with open(j(d, "x.txt"), "x") as f:
        f.write("x")
    return read(j(d, "x.txt"))


case(lambda d: opened(j(d, "a.txt"), "x"))
case(lambda d: opened(j(d, "nodir", "y.txt"), "w"))
case(lambda d: opened(j(d, "sub"), "w"))
case(lambda d: opened(j(d, "a.txt", "y"), "w"))


@case
def read_plus(d):
    with open(j(d, "a.txt"), "r+") as f:
        f.seek(6)
        f.write("WORLD")
        f.seek(0)
        return f.read()


@case
def write_plus(d):
    with open(j(d, "a.txt"), "w+") as f:
        f.write("abc")
        f.seek(0)
        first = f.read()
    return [first, read(j(d, "a.txt"))]


@case
def append_plus(d):
    with open(j(d, "a.txt"), "a+") as f:
        f.write("!")
        f.seek(0)
        return f.read()


@case
def truncate_plus(d):
    with open(j(d, "b.bin"), "r+b") as f:
        f.truncate(10)
    return os.path.getsize(j(d, "b.bin"))


@case
def write_past_end(d):
    with open(j(d, "a.txt"), "r+b") as f:
        f.seek(20)
        f.write(b"Z")
    return read(j(d, "a.txt"), "rb").hex()


@case
def newline_modes(d):
    with open(j(d, "nl.txt"), "w", newline="\r\n") as f:
        f.write("a\nb\n")
    with open(j(d, "nl.txt"), newline="") as f:
        raw = f.read()
    return [read(j(d, "nl.txt"), "rb").hex(), raw, read(j(d, "nl.txt"))]


@case
def encodings(d):
    with open(j(d, "u.txt"), "w", encoding="utf-16") as f:
        f.write("héllo")
    with open(j(d, "u.txt"), encoding="utf-16") as f:
        return [f.read(), os.path.getsize(j(d, "u.txt"))]


@case
def decode_error(d):
    with open(j(d, "b.bin"), encoding="utf-8") as f:
        return f.read()


@case
def flush_then_fsync(d):
    with open(j(d, "s.txt"), "w") as f:
        f.write("synced")
        f.flush()
        os.fsync(f.fileno())
        before_close = read(j(d, "s.txt"))
        f.write("+more")
    return [before_close, read(j(d, "s.txt"))]


@case
def fstat_of_open_file(d):
    with open(j(d, "a.txt"), "rb") as f:
        return os.fstat(f.fileno()).st_size


@case
def fstat_of_a_file_opened_by_a_relative_path(d):
    def body():
        with open("b.bin", "rb") as f:
            return os.fstat(f.fileno()).st_size
    return in_dir(d, body)


case(lambda d: opened(j(d, "a.txt"), "rw"))
case(lambda d: opened(j(d, "a.txt"), "rb", encoding="utf-8"))

# ------------------------------------------------------------------ os: listing and stat
case(lambda d: sorted(os.listdir(d)))
case(lambda d: sorted(os.listdir(j(d, "sub"))))
case(lambda d: os.listdir(j(d, "empty")))
case(lambda d: sorted(os.listdir(j(d, "link_sub"))))
case(lambda d: os.listdir(j(d, "missing")))
case(lambda d: os.listdir(j(d, "a.txt")))
case(lambda d: sorted(os.listdir(os.fsencode(j(d, "sub")))))


@case
def scandir_kinds(d):
    with os.scandir(d) as it:
        return sorted([e.name, os.path.relpath(e.path, d), e.is_dir(), e.is_file(),
                       e.is_symlink(), e.is_dir(follow_symlinks=False)] for e in it)


@case
def scandir_stat(d):
    return sorted([e.name, e.stat().st_size if not e.is_dir() else None,
                   kind_of(e.stat(follow_symlinks=False).st_mode)]
                  for e in os.scandir(d) if e.name != "dangling")


case(lambda d: list(os.scandir(j(d, "missing"))))
case(lambda d: [os.stat(j(d, "a.txt")).st_size, kind_of(os.stat(j(d, "a.txt")).st_mode)])
case(lambda d: os.stat(j(d, "a.txt")).st_mtime)
case(lambda d: os.stat(j(d, "a.txt")).st_mtime_ns)
case(lambda d: kind_of(os.stat(j(d, "sub")).st_mode))
case(lambda d: [kind_of(os.lstat(j(d, "link_a")).st_mode), os.lstat(j(d, "link_a")).st_size])
case(lambda d: kind_of(os.stat(j(d, "link_a")).st_mode))
case(lambda d: os.stat(j(d, "dangling")))
case(lambda d: kind_of(os.lstat(j(d, "dangling")).st_mode))
case(lambda d: os.stat(j(d, "missing")))
case(lambda d: os.stat(j(d, "a.txt", "x")))
case(lambda d: kind_of(os.stat(j(d, "link_a"), follow_symlinks=False).st_mode))
case(lambda d: stat.S_IMODE(os.stat(j(d, "a.txt")).st_mode) & 0o700)
case(lambda d: os.stat(j(d, "b.bin")).st_size)
case(lambda d: os.stat(path=j(d, "b.bin")).st_size)
case(lambda d: [os.rename(src=j(d, "a.txt"), dst=j(d, "kw.txt")), os.path.exists(j(d, "kw.txt"))])
case(lambda d: opened(j(d, "a.txt"), closefd=False))
case(lambda d: opened(""))

# ------------------------------------------------------------------ os: changing the tree
@case
def mkdir_and_list(d):
    os.mkdir(j(d, "m"))
    return [os.path.isdir(j(d, "m")), os.listdir(j(d, "m"))]


case(lambda d: os.mkdir(j(d, "sub")))
case(lambda d: os.mkdir(j(d, "no", "deeper")))
case(lambda d: os.mkdir(j(d, "a.txt", "x")))


@case
def makedirs_deep(d):
    os.makedirs(j(d, "p", "q", "r"))
    os.makedirs(j(d, "p", "q"), exist_ok=True)
    return tree(j(d, "p"))


case(lambda d: os.makedirs(j(d, "sub", "deep")))
case(lambda d: os.makedirs(j(d, "a.txt", "z")))


@case
def remove_file(d):
    os.remove(j(d, "a.txt"))
    return os.path.exists(j(d, "a.txt"))


@case
def unlink_link_keeps_target(d):
    os.unlink(j(d, "link_a"))
    return [os.path.lexists(j(d, "link_a")), os.path.exists(j(d, "a.txt"))]


case(lambda d: os.remove(j(d, "missing")))
case(lambda d: os.remove(j(d, "sub")))
case(lambda d: os.unlink(j(d, "empty")))


@case
def rmdir_empty(d):
    os.rmdir(j(d, "empty"))
    return os.path.exists(j(d, "empty"))


case(lambda d: os.rmdir(j(d, "sub")))
case(lambda d: os.rmdir(j(d, "a.txt")))
case(lambda d: os.rmdir(j(d, "missing")))


@case
def rename_file(d):
    os.rename(j(d, "a.txt"), j(d, "renamed.txt"))
    return [read(j(d, "renamed.txt")), os.path.exists(j(d, "a.txt"))]


@case
def rename_over_file(d):
    os.rename(j(d, "sub", "c.txt"), j(d, "a.txt"))
    return read(j(d, "a.txt"))


@case
def rename_dir(d):
    os.rename(j(d, "sub"), j(d, "moved"))
    return tree(j(d, "moved"))


case(lambda d: os.rename(j(d, "missing"), j(d, "x")))
case(lambda d: os.rename(j(d, "empty"), j(d, "sub")))
case(lambda d: os.rename(j(d, "a.txt"), j(d, "sub")))
case(lambda d: os.rename(j(d, "sub"), j(d, "a.txt")))
case(lambda d: os.rename(j(d, "sub"), j(d, "sub", "deep", "in")))


@case
def replace_file(d):
    os.replace(j(d, "b.bin"), j(d, "a.txt"))
    return os.path.getsize(j(d, "a.txt"))


@case
def replace_empty_dir(d):
    os.replace(j(d, "sub"), j(d, "empty"))
    return sorted(os.listdir(j(d, "empty")))


@case
def symlink_and_readlink(d):
    os.symlink("sub/c.txt", j(d, "lc"))
    return [os.readlink(j(d, "lc")), read(j(d, "lc")), os.path.islink(j(d, "lc"))]


case(lambda d: os.symlink("x", j(d, "a.txt")))
case(lambda d: os.readlink(j(d, "a.txt")))
case(lambda d: os.readlink(j(d, "missing")))
case(lambda d: os.readlink(j(d, "dangling")))
case(lambda d: os.readlink(os.fsencode(j(d, "link_a"))))


@case
def utime_sets_times(d):
    os.utime(j(d, "sub", "c.txt"), (1_500_000_000, 1_500_000_100))
    found = os.stat(j(d, "sub", "c.txt"))
    return [found.st_atime, found.st_mtime]


@case
def utime_ns(d):
    os.utime(j(d, "sub", "c.txt"), ns=(1_500_000_000_000_000_000, 1_500_000_001_000_000_000))
    return os.stat(j(d, "sub", "c.txt")).st_mtime_ns


@case
def utime_of_a_missing_file(d):  # names the path from Python 3.13 on
    os.utime(j(d, "missing"), (1, 1))


@case
def chmod_bits(d):
    os.chmod(j(d, "a.txt"), 0o640)
    return oct(stat.S_IMODE(os.stat(j(d, "a.txt")).st_mode))


case(lambda d: os.chmod(j(d, "missing"), 0o600))


@case
def truncate_path(d):
    os.truncate(j(d, "b.bin"), 5)
    return read(j(d, "b.bin"), "rb").hex()


case(lambda d: [os.access(j(d, "a.txt"), os.F_OK), os.access(j(d, "missing"), os.F_OK),
                os.access(j(d, "a.txt"), os.R_OK | os.W_OK), os.access(j(d, "sub"), os.X_OK)])

# ------------------------------------------------------------------ cwd and relative paths


def in_dir(d, function):
    saved = os.getcwd()
    os.chdir(d)
    try:
        return function()
    finally:
        os.chdir(saved)


case(lambda d: in_dir(d, lambda: os.path.relpath(os.getcwd(), d)))
case(lambda d: in_dir(j(d, "sub"), lambda: read("c.txt")))
case(lambda d: in_dir(j(d, "sub"), lambda: read("../a.txt")))
case(lambda d: in_dir(d, lambda: sorted(os.listdir())))
case(lambda d: in_dir(d, lambda: sorted(os.listdir("sub"))))
case(lambda d: in_dir(d, lambda: os.path.relpath(os.path.abspath("x/y"), d)))
case(lambda d: in_dir(j(d, "link_sub"), lambda: os.path.relpath(os.getcwd(), d)))
case(lambda d: os.chdir(j(d, "missing")))
case(lambda d: os.chdir(j(d, "a.txt")))


@case
def relative_writes(d):
    def body():
        with open("rel.txt", "w") as f:
            f.write("r")
        os.mkdir("rd")
        os.rename("rel.txt", "rd/rel.txt")
        return sorted(os.listdir("rd"))
    return in_dir(d, body)


case(lambda d: in_dir(d, lambda: opened("missing.txt")))

# ------------------------------------------------------------------ os.walk, os.path
# The order directories are visited in follows the listing, which Linux does not sort.
case(lambda d: sorted([os.path.relpath(r, d), sorted(ds), sorted(fs)] for r, ds, fs in os.walk(d)))
case(lambda d: sorted(os.path.relpath(r, d) for r, _, _ in os.walk(d, followlinks=True)))
@case
def walk_bottom_up(d):
    walked = [[os.path.relpath(r, d), sorted(fs)] for r, _, fs in os.walk(d, topdown=False)]
    order = [rel for rel, _ in walked]
    children_first = all(order.index(rel) < order.index(os.path.dirname(rel) or ".")
                         for rel in order if rel != ".")
    return [sorted(walked), children_first]


case(lambda d: list(os.walk(j(d, "missing"))))
case(lambda d: [os.path.exists(j(d, n)) for n in ("a.txt", "sub", "link_a", "dangling", "no")])
case(lambda d: [os.path.lexists(j(d, n)) for n in ("dangling", "no")])
case(lambda d: [os.path.isfile(j(d, n)) for n in ("a.txt", "sub", "link_a", "no")])
case(lambda d: [os.path.isdir(j(d, n)) for n in ("a.txt", "sub", "link_sub", "no")])
case(lambda d: [os.path.islink(j(d, n)) for n in ("a.txt", "link_a", "dangling", "no")])
case(lambda d: os.path.getsize(j(d, "a.txt")))
case(lambda d: os.path.getmtime(j(d, "a.txt")))
case(lambda d: os.path.getsize(j(d, "missing")))
case(lambda d: os.path.relpath(os.path.realpath(j(d, "link_a")), d))
case(lambda d: os.path.relpath(os.path.realpath(j(d, "link_sub", "deep")), d))
case(lambda d: os.path.samefile(j(d, "link_a"), j(d, "a.txt")))
case(lambda d: os.path.samefile(j(d, "a.txt"), j(d, "b.bin")))
case(lambda d: os.path.ismount(j(d, "sub")))

# ------------------------------------------------------------------ pathlib
P = pathlib.Path
case(lambda d: P(d, "a.txt").read_text())
case(lambda d: P(d, "b.bin").read_bytes()[:3].hex())
case(lambda d: sorted(p.name for p in P(d).iterdir()))
case(lambda d: [P(d, "a.txt").exists(), P(d, "sub").is_dir(), P(d, "link_a").is_symlink()])
case(lambda d: P(d, "missing").read_text())


@case
def pathlib_write(d):
    P(d, "pw.txt").write_text("pathlib")
    P(d, "pw.bin").write_bytes(b"\x01")
    return [P(d, "pw.txt").read_text(), P(d, "pw.bin").stat().st_size]


@case
def pathlib_mkdir_parents(d):
    P(d, "x", "y").mkdir(parents=True)
    P(d, "x", "y").mkdir(parents=True, exist_ok=True)
    return P(d, "x", "y").is_dir()


case(lambda d: P(d, "sub").mkdir())


@case
def pathlib_touch(d):
    P(d, "t.txt").touch()
    P(d, "t.txt").touch()
    return [P(d, "t.txt").stat().st_size, P(d, "t.txt").is_file()]


case(lambda d: P(d, "a.txt").touch(exist_ok=False))


@case
def pathlib_unlink_rmdir(d):
    P(d, "a.txt").unlink()
    P(d, "empty").rmdir()
    P(d, "gone").unlink(missing_ok=True)
    return sorted(os.listdir(d))


@case
def pathlib_rename(d):
    target = P(d, "a.txt").rename(P(d, "r.txt"))
    return [target.name, P(d, "r.txt").read_text()]


case(lambda d: sorted(str(p.relative_to(d)) for p in P(d).glob("*.txt")))
case(lambda d: sorted(str(p.relative_to(d)) for p in P(d).rglob("*.txt")))
case(lambda d: str(P(d, "link_sub", "c.txt").resolve().relative_to(P(d).resolve())))
case(lambda d: in_dir(d, lambda: str(P.cwd().relative_to(d))))
case(lambda d: [P(d, "a.txt").stat().st_size, P(d, "link_a").lstat().st_size])
case(lambda d: str(P(d, "link_a").readlink()))
case(lambda d: in_dir(d, lambda: str(P("sub/c.txt").absolute().relative_to(d))))

# ------------------------------------------------------------------ shutil
@case
def shutil_copyfile(d):
    shutil.copyfile(j(d, "a.txt"), j(d, "copy.txt"))
    return read(j(d, "copy.txt"))


@case
def shutil_copy_into_dir(d):
    result = shutil.copy(j(d, "a.txt"), j(d, "sub"))
    return [os.path.relpath(result, d), read(j(d, "sub", "a.txt"))]


@case
def shutil_copy2_keeps_mtime(d):
    shutil.copy2(j(d, "a.txt"), j(d, "c2.txt"))
    return os.stat(j(d, "c2.txt")).st_mtime


case(lambda d: shutil.copyfile(j(d, "missing"), j(d, "x")))
case(lambda d: shutil.copyfile(j(d, "a.txt"), j(d, "a.txt")))
case(lambda d: shutil.copyfile(j(d, "a.txt"), j(d, "nodir", "x")))


@case
def shutil_copytree(d):
    shutil.copytree(j(d, "sub"), j(d, "tree2"))
    return tree(j(d, "tree2"))


@case
def shutil_copytree_symlinks(d):
    shutil.copytree(d, j(d, "..", os.path.basename(d) + "_copy"), symlinks=True)
    copied = tree(j(d, "..", os.path.basename(d) + "_copy"))
    shutil.rmtree(j(d, "..", os.path.basename(d) + "_copy"))
    return copied


case(lambda d: shutil.copytree(j(d, "sub"), j(d, "empty")))


@case
def shutil_rmtree(d):
    shutil.rmtree(j(d, "sub"))
    return sorted(os.listdir(d))


case(lambda d: shutil.rmtree(j(d, "missing")))
case(lambda d: shutil.rmtree(j(d, "a.txt")))


@case
def rmtree_of_a_link(d):  # names the path from Python 3.13 on
    shutil.rmtree(j(d, "link_sub"))


case(lambda d: shutil.rmtree(j(d, "missing"), ignore_errors=True))


@case
def shutil_move_file(d):
    shutil.move(j(d, "a.txt"), j(d, "sub"))
    return [os.path.exists(j(d, "a.txt")), read(j(d, "sub", "a.txt"))]


@case
def shutil_move_dir(d):
    shutil.move(j(d, "sub"), j(d, "empty"))
    return tree(j(d, "empty"))


# ------------------------------------------------------------------ glob
case(lambda d: sorted(os.path.relpath(p, d) for p in glob.glob(j(d, "*"))))
case(lambda d: sorted(os.path.relpath(p, d) for p in glob.glob(j(d, "**", "*.txt"),
                                                                 recursive=True)))
case(lambda d: sorted(os.path.relpath(p, d) for p in glob.glob(j(d, "sub", "*", "*"))))
case(lambda d: glob.glob(j(d, "nothing*")))
case(lambda d: in_dir(d, lambda: sorted(glob.glob("*.txt"))))
case(lambda d: sorted(glob.glob("*", root_dir=j(d, "sub"))))

# ------------------------------------------------------------------ json, csv, zipfile


@case
def json_round_trip(d):
    with open(j(d, "data.json"), "w") as f:
        json.dump({"a": [1, 2, 3], "b": "é"}, f)
    with open(j(d, "data.json")) as f:
        return json.load(f)


@case
def json_load_error(d):
    with open(j(d, "a.txt")) as f:
        return json.load(f)


@case
def csv_round_trip(d):
    with open(j(d, "t.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["name", "n"])
        writer.writerows([["a", 1], ["b, c", 2]])
    with open(j(d, "t.csv"), newline="") as f:
        return [list(csv.DictReader(f)), read(j(d, "t.csv"), "rb").hex()]


@case
def zipfile_round_trip(d):
    with zipfile.ZipFile(j(d, "z.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("inner/x.txt", "zipped" * 100)
        z.write(j(d, "a.txt"), "a.txt")
    with zipfile.ZipFile(j(d, "z.zip")) as z:
        names = sorted(z.namelist())
        z.extractall(j(d, "unzipped"))
    return [names, tree(j(d, "unzipped"))]


@case
def zipfile_append(d):
    with zipfile.ZipFile(j(d, "z.zip"), "w") as z:
        z.writestr("one", "1")
    with zipfile.ZipFile(j(d, "z.zip"), "a") as z:
        z.writestr("two", "2")
    with zipfile.ZipFile(j(d, "z.zip")) as z:
        return [z.read(n).decode() for n in sorted(z.namelist())]


case(lambda d: zipfile.ZipFile(j(d, "a.txt")))

# ------------------------------------------------------------------ low-level descriptors


@case
def os_open_write_read(d):
    fd = os.open(j(d, "fd.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.write(fd, b"via fd")
    os.close(fd)
    fd = os.open(j(d, "fd.txt"), os.O_RDONLY)
    data = os.read(fd, 100)
    os.close(fd)
    return data.decode()


case(lambda d: os.open(j(d, "a.txt"), os.O_WRONLY | os.O_CREAT | os.O_EXCL))
case(lambda d: os.open(j(d, "missing"), os.O_RDONLY))
# Without O_CREAT nothing is made, whatever else the flags say.
case(lambda d: os.open(j(d, "missing"), os.O_WRONLY | os.O_APPEND))
case(lambda d: os.open(j(d, "missing"), os.O_WRONLY | os.O_TRUNC))
case(lambda d: os.open(j(d, "missing"), os.O_RDWR))


@case
def os_open_creates_read_only_with_its_mode(d):
    os.close(os.open(j(d, "ro.txt"), os.O_RDONLY | os.O_CREAT, 0o600))
    os.close(os.open(j(d, "plain.txt"), os.O_WRONLY | os.O_CREAT))
    return [oct(stat.S_IMODE(os.stat(j(d, name)).st_mode)) for name in ("ro.txt", "plain.txt")]


@case
def os_open_append_and_in_place(d):
    fd = os.open(j(d, "a.txt"), os.O_WRONLY | os.O_APPEND)
    os.write(fd, b"more\n")
    os.close(fd)
    fd = os.open(j(d, "a.txt"), os.O_WRONLY)
    os.write(fd, b"J")
    os.close(fd)
    return read(j(d, "a.txt"))


@case
def fdopen_and_opener(d):
    with os.fdopen(os.open(j(d, "fd.txt"), os.O_WRONLY | os.O_CREAT), "w") as f:
        f.write("through fdopen")
    with open(j(d, "opened.txt"), "w", opener=lambda path, flags: os.open(path, flags, 0o640)) as f:
        f.write("through an opener")
    with open(j(d, "opened.txt"), opener=os.open) as f:
        text = f.read()
    return [read(j(d, "fd.txt")), text, oct(stat.S_IMODE(os.stat(j(d, "opened.txt")).st_mode))]


@case
def keyword_paths(d):
    back = os.getcwd()
    os.chdir(path=j(d, "sub"))
    try:
        here = os.getcwd()
        os.chdir(j(d))
        return [here, os.stat(path="a.txt").st_size, sorted(os.listdir(path="sub"))]
    finally:
        os.chdir(back)


# ------------------------------------------------------------------ running and comparing

def normalized(value, d):
    """``value`` as JSON data, ``d`` shown as ``<d>``."""
    if isinstance(value, str):
        return value.replace(d, "<d>")
    if isinstance(value, bytes):
        return "bytes:" + value.decode("utf-8", "backslashreplace").replace(d, "<d>")
    if isinstance(value, (list, tuple)):
        return [normalized(item, d) for item in value]
    if isinstance(value, dict):
        return {key: normalized(item, d) for key, item in value.items()}
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return "object:" + type(value).__name__


def outcome(function, d):
    """The case's value, or its exception: the builtin class, errno (by name: Emscripten's
    numbers are not Linux's) and paths."""
    try:
        return ["value", normalized(function(d), d)]
    except OSError as exc:
        builtin = next(cls for cls in type(exc).__mro__ if cls.__module__ == "builtins")
        code = errno.errorcode.get(exc.errno, exc.errno)
        return ["error", builtin.__name__, code, normalized(exc.filename, d),
                normalized(exc.filename2, d)]
    except Exception as exc:
        return ["error", type(exc).__name__]


def name_of(index, function):
    return f"{index:03d}_{getattr(function, '__name__', 'case')}"


def run_all(base):
    """Every case in a fresh copy of the tree under ``base``: {case name: outcome}."""
    results = {}
    for index, function in enumerate(CASES):
        d = os.path.join(base, f"case{index:03d}")
        os.makedirs(d)
        make_tree(d)
        results[name_of(index, function)] = outcome(function, d)
    return results


if __name__ == "__main__":
    print(json.dumps(run_all(sys.argv[1])))
