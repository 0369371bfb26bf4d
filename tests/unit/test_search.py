"""Search over the VFS: ls, find, glob, grep, and the glob dialect."""

from __future__ import annotations

import asyncio

import pytest

from py_vfs import VFS, FsError
from py_vfs.core.globs import compile_glob


@pytest.fixture
def vfs(vfs: VFS) -> VFS:

    async def fill():
        await vfs.write_file("/src/app.py", "import os\nprint('Hello')\n")
        await vfs.write_file("/src/lib/util.py", "def hello():\n    return 'hello'\n")
        await vfs.write_file("/src/lib/data.bin", b"hello\0binary")
        await vfs.write_file("/src/readme.md", "# Hello\n")
        await vfs.write_file("/ab/x", "no")
        await vfs.symlink("lib", "/src/link")

    asyncio.run(fill())
    return vfs


@pytest.mark.parametrize(("pattern", "subject", "matches"), [
    ("*.py", "app.py", True),
    ("*.py", "lib/util.py", False),
    ("**/*.py", "app.py", True),
    ("**/*.py", "lib/util.py", True),
    ("lib/**", "lib/a/b", True),
    ("?.md", "a.md", True),
    ("?.md", "ab.md", False),
    ("[ab].txt", "b.txt", True),
    ("[!ab].txt", "b.txt", False),
    ("*.{py,md}", "readme.md", True),
    ("*.{py,md}", "x.txt", False),
    ("{src,lib}/{a,b{c,d}}", "lib/bd", True),
    ("a[", "a[", True),
])
def test_glob_dialect(pattern, subject, matches):
    assert bool(compile_glob(pattern).match(subject)) is matches


def test_ls_is_segment_aware(vfs):
    assert vfs.ls("/src/lib") == ["/src/lib/data.bin", "/src/lib/util.py"]
    assert vfs.ls("/a") == []
    assert vfs.ls("/ab") == ["/ab/x"]
    assert vfs.ls("/src/app.py") == ["/src/app.py"]
    assert "/src/link" in vfs.ls("/src")
    assert "/src/link/util.py" not in vfs.ls("/src")


def test_find(vfs):
    assert vfs.find("/src", "**/*.py") == [
        {"path": "/src/app.py", "type": "file"},
        {"path": "/src/lib/util.py", "type": "file"},
    ]
    assert {"path": "/src/lib", "type": "directory"} in vfs.find("/src")
    assert {"path": "/src/link", "type": "symlink"} in vfs.find("/src")
    with pytest.raises(FsError) as info:
        vfs.find("/nope")
    assert info.value.code == "ENOENT"
    with pytest.raises(FsError) as info:
        vfs.find("/src/app.py")
    assert info.value.code == "ENOTDIR"


def test_glob(vfs):
    assert vfs.glob("/src/*.py") == ["/src/app.py"]
    assert vfs.glob("/src/**/*.py") == ["/src/app.py", "/src/lib/util.py"]
    assert vfs.glob("src/*.md") == ["/src/readme.md"]
    assert vfs.glob("/nope/*") == []
    assert vfs.glob("/src/app.py") == ["/src/app.py"]
    assert vfs.glob("/src/link/*.py") == ["/src/link/util.py"]


def test_grep(vfs):
    result = asyncio.run(vfs.grep("hello", "/src", ignore_case=True))
    assert result.matches == [
        {"path": "/src/app.py", "line": 2, "text": "print('Hello')"},
        {"path": "/src/lib/util.py", "line": 1, "text": "def hello():"},
        {"path": "/src/lib/util.py", "line": 2, "text": "    return 'hello'"},
        {"path": "/src/readme.md", "line": 1, "text": "# Hello"},
    ]
    assert result.skipped_binary_paths == ["/src/lib/data.bin"]
    literal = asyncio.run(vfs.grep("print(", "/src", regex=False))
    assert [m["path"] for m in literal.matches] == ["/src/app.py"]
    only_md = asyncio.run(vfs.grep("Hello", include="*.md"))
    assert [m["path"] for m in only_md.matches] == ["/src/readme.md"]
    capped = asyncio.run(vfs.grep("hello", "/src", ignore_case=True, max_results=2))
    assert len(capped.matches) == 2
    small = asyncio.run(vfs.grep("hello", "/src", max_file_size=10))
    assert "/src/app.py" in small.skipped_paths

