"""A randomized differential test of a restricted view: random operations (writes, renames,
links in and out, removals) go through the view of one disk; each one that succeeds is applied,
unrestricted, to a second disk. After every operation:

- the two disks are equal (what the view did is what the plain operation does);
- nothing outside the writable paths changed;
- every read of the view agrees with the unrestricted disk filtered by the rules: a path the
  view finds leads (on the plain disk) to a readable place and has the same content there, and
  the view's listings are the plain disk's, filtered to the readable paths.

0 escapes: any difference fails, naming the seed and the operations so far."""

from __future__ import annotations

import asyncio
import random

import pytest

from py_vfs import VFS, FsError

READ = ["/r", "/w"]
WRITE = ["/w"]
NAMES = ["/w/a", "/w/b", "/w/d/c", "/w/d", "/r/a", "/r/d/x", "/o/a", "/o/d/y", "/w/l1",
         "/w/l2", "/w/d/l3", "/w/../o/a", "/w/l1/a", "/w/l2/x", "/w/d/../a", "/o/d"]
TARGETS = ["/o", "/o/a", "/r", "/r/a", "/w/a", "../o/d", "../r/d", "a", "/w/d", "l2", "/"]


def readable(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in READ)


def writable(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in WRITE)


def tree(vfs: VFS) -> dict[str, tuple]:
    """Every entry: kind, link target, content."""
    out = {}
    for entry in vfs.find("/"):
        path = entry["path"]
        info = vfs.lstat(path)
        content = asyncio.run(vfs.read_file(path)) if info.type == "file" else None
        out[path] = (info.type, info.target, content)
    return out


def random_operation(rng: random.Random):
    name, other = rng.choice(NAMES), rng.choice(NAMES)
    data = f"v{rng.randrange(1000)}"
    return rng.choice([
        ("write_file", (name, data), {}),
        ("append_file", (name, data), {}),
        ("mkdir", (name,), {"recursive": True}),
        ("symlink", (rng.choice(TARGETS), name), {}),
        ("rename", (name, other), {}),
        ("copy_file", (name, other), {}),
        ("cp", (name, other), {"recursive": True}),
        ("rm", (name,), {"recursive": True}),
        ("truncate", (name, 1), {}),
    ])


def check_reads(view, plain: VFS, history: list) -> None:
    for path in NAMES + TARGETS[:5]:
        path = path if path.startswith("/") else "/w/" + path
        try:
            found = view.exists(path)
        except FsError:
            continue
        if not found:
            continue
        real = plain.realpath(path)
        assert readable(real), (path, real, history)
        if plain.stat(path).is_file:
            assert asyncio.run(view.read_file(path)) == asyncio.run(plain.read_file(path))
    assert view.walk("/") == [p for p in plain.walk("/") if readable(p)], history
    for path in ("/", "/w", "/r"):
        if plain.exists(path):
            want = [n for n in plain.readdir(path)
                    if readable(f"{path.rstrip('/')}/{n}") or (path == "/" and n in "wr")]
            assert view.readdir(path) == want, history


@pytest.mark.parametrize("seed", range(12))
def test_a_restricted_view_matches_the_filtered_disk(seed):
    rng = random.Random(seed)
    shared, plain = VFS.memory(), VFS.memory()
    for disk in (shared, plain):
        for path in ("/w/a", "/r/a", "/o/a", "/r/d/x", "/o/d/y"):
            asyncio.run(disk.write_file(path, path))
    view = shared.restrict(read=READ, write=WRITE)
    history: list = []
    for _ in range(60):
        op, args, kwargs = random_operation(rng)
        history.append((op, args))
        outside_before = {p: v for p, v in tree(shared).items() if not writable(p)}
        try:
            asyncio.run(getattr(view, op)(*args, **kwargs))
        except FsError:
            pass
        else:
            asyncio.run(getattr(plain, op)(*args, **kwargs))
        after = tree(shared)
        assert {p: v for p, v in after.items() if not writable(p)} == outside_before, history
        assert after == tree(plain), history
        check_reads(view, plain, history)
