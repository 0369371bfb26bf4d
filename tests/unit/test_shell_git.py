"""The shell's `git` against real git: the same script of commands runs with Debian's `git` in a
temporary directory and with ours in a VFS shell, and each command's standard output, standard
error (where git's is stable) and status must be equal, and so must the objects made (commit
ids with fixed dates). The disk's repository, exported, must pass real git's `fsck --strict`.

The expected outputs are real git's, produced at test time (nothing hand-typed)."""

from __future__ import annotations

import io
import os
import shlex
import shutil
import subprocess
import sys
import time
import zipfile

import pytest

if sys.platform == "emscripten":
    pytest.skip("real git runs as a process, which Pyodide cannot start", allow_module_level=True)
pytest.importorskip("dulwich")
GIT = shutil.which("git")
if GIT is None:
    pytest.skip("real git is not installed (sh build/setup.sh --test installs it)",
                allow_module_level=True)

from shell_session import Session  # noqa: E402

from py_vfs.archives.archive import export  # noqa: E402

ENV = {
    "GIT_AUTHOR_NAME": "A U Thor", "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "C O Mitter", "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_AUTHOR_DATE": "@1700000000 +0100", "GIT_COMMITTER_DATE": "@1700000100 +0100",
}

# (command, compare stderr): every line runs in both; shell lines (not starting with git) make
# the files both sides work on.
SCRIPT: list[tuple[str, bool]] = [
    ("git init -q", True),
    ("git config user.name 'Conf User'", True),
    ("git config user.email conf@example.com", True),
    ("git config user.name", True),
    ("git status", True),
    ("printf 'one\\ntwo\\nthree\\n' > a.txt", True),
    ("mkdir -p src/lib && printf 'x = 1\\n' > src/lib/m.py && printf 'b\\n' > b.txt", True),
    ("git status", True),
    ("git status -s", True),
    ("git add a.txt", True),
    ("git status", True),
    ("git status --porcelain", True),
    ("git add .", True),
    ("git commit -m 'first commit'", True),
    ("git rev-parse HEAD", True),
    ("git log", True),
    ("git status", True),
    ("printf 'one\\n2\\nthree\\nfour\\n' > a.txt && rm b.txt", True),
    ("git status", True),
    ("git status -s", True),
    ("git diff", True),
    ("git diff --stat", True),
    ("git diff --name-only", True),
    ("git commit -a -m 'second: edit a, drop b'", True),
    ("git log --oneline", True),
    ("git diff HEAD~1 HEAD", True),
    ("git diff HEAD~1 HEAD --name-status", True),
    ("git diff HEAD~1 --stat", True),
    ("printf 'new\\n' > c.txt && git add c.txt", True),
    ("git diff --cached", True),
    ("git diff --staged --name-status", True),
    ("git commit -q -m third", True),
    ("git mv c.txt d.txt", True),
    ("git status", True),
    ("git commit -m 'rename c'", True),
    ("git rm -q src/lib/m.py", True),
    ("git status -s", True),
    ("git commit -m 'remove m'", True),
    ("git commit -m nothing", True),
    ("git commit --allow-empty -m 'empty one'", True),
    ("git log -n 2", True),
    ("git log -3 --oneline", True),
    ("git branch", True),
    ("git branch feature", True),
    ("git branch", True),
    ("git checkout -b topic", True),
    ("printf 'topic\\n' >> d.txt && git commit -q -am 'topic work'", True),
    ("git checkout master", True),
    ("git merge topic", True),
    ("git log --oneline -n 3", True),
    ("git checkout feature", True),
    ("printf 'one\\nFEATURE\\nthree\\nfour\\n' > a.txt && git commit -q -am 'feature edit'", True),
    ("git switch master", True),
    ("printf 'one\\nMASTER\\nthree\\nfour\\n' > a.txt && git commit -q -am 'master edit'", True),
    ("git merge feature", True),
    ("cat a.txt", True),
    ("git status", True),
    ("git status -s", True),
    ("printf 'one\\nboth\\nthree\\nfour\\n' > a.txt && git add a.txt", True),
    ("git commit -q -m 'merge feature'", True),
    ("git log --oneline -n 4", True),
    ("git checkout -b side HEAD~1", True),
    ("printf 'side\\n' > e.txt && git add e.txt && git commit -q -m side", True),
    ("git checkout master", True),
    ("git merge -m 'merge side' side", True),
    ("git tag v1", True),
    ("git tag -a v2 -m 'version two'", True),
    ("git tag", True),
    ("git branch -d topic", True),
    ("git branch -d feature", True),
    ("git branch -D side", True),
    ("git branch", True),
    ("git rm --cached a.txt", True),
    ("git status -s", True),
    ("git add a.txt", True),
    ("git checkout -- d.txt", True),
    ("git checkout nope", True),
    ("git log", True),
]

CHECK_OBJECTS = ("HEAD", "HEAD^{tree}", "v1", "v2")


def _real_git(tmp_path) -> list[tuple[str, str, int]]:
    """Each line of SCRIPT run by bash with real git in ``tmp_path``/real."""
    work = tmp_path / "real"
    work.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home"), "LANG": "C",
           "GIT_CONFIG_NOSYSTEM": "1", **ENV}
    (tmp_path / "home").mkdir()
    results = []
    for line, _ in SCRIPT:
        proc = subprocess.run(["bash", "-c", line], cwd=work, env=env, capture_output=True,
                              text=True, timeout=60)
        results.append((proc.stdout, proc.stderr, proc.returncode))
    for spec in CHECK_OBJECTS:
        proc = subprocess.run([GIT, "rev-parse", spec], cwd=work, env=env, capture_output=True,
                              text=True, check=True)
        results.append((proc.stdout, "", 0))
    return results


def _ours() -> tuple[Session, list[tuple[str, str, int]]]:
    session = Session()
    session.ok("mkdir -p /work /home/user && cd /work && export HOME=/home/user " + " ".join(
        f"{name}={shlex.quote(value)}" for name, value in ENV.items())
        + " && export " + " ".join(ENV))
    results = []
    for line, _ in SCRIPT:
        result = session(line)
        results.append((result.stdout, result.stderr, result.code))
    for spec in CHECK_OBJECTS:
        result = session(f"git rev-parse {spec}")
        results.append((result.stdout, "", result.code))
    return session, results


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("git")
    theirs = _real_git(tmp_path)
    session, ours = _ours()
    return tmp_path, theirs, session, ours


@pytest.mark.parametrize("step", range(len(SCRIPT) + len(CHECK_OBJECTS)))
def test_same_as_real_git(both, step):
    _, theirs, _, ours = both
    line = (SCRIPT[step][0] if step < len(SCRIPT) else
            f"git rev-parse {CHECK_OBJECTS[step - len(SCRIPT)]}")
    compare_stderr = SCRIPT[step][1] if step < len(SCRIPT) else True
    want, got = theirs[step], ours[step]
    assert got[0] == want[0], f"stdout of {line!r}"
    assert got[2] == want[2], f"status of {line!r}: {got[1]!r}"
    if compare_stderr:
        assert got[1] == want[1], f"stderr of {line!r}"


def test_real_git_reads_the_exported_repository(both, tmp_path):
    _, _, session, _ = both

    async def zipped() -> bytes:
        return b"".join([chunk async for chunk in export(session.vfs, "/work")])

    data = session.runner.run(zipped())
    target = tmp_path / "exported"
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(target)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    fsck = subprocess.run([GIT, "fsck", "--strict"], cwd=target, env=env, capture_output=True,
                          text=True, timeout=60)
    assert fsck.returncode == 0, fsck.stderr
    log = subprocess.run([GIT, "log", "--oneline"], cwd=target, env=env, capture_output=True,
                         text=True, check=True).stdout
    assert log.splitlines()[0].endswith("merge side")
    status = subprocess.run([GIT, "status", "--porcelain"], cwd=target, env=env,
                            capture_output=True, text=True, check=True).stdout
    ours = session("cd /work && git status --porcelain").stdout
    assert status == ours



def test_a_file_over_the_line_diff_limit_is_compared_as_binary_in_bounded_time():
    """Bounds (docs/shell.md): a file over 4 MiB is not compared line by line."""
    session = Session()
    session.write("/big/f", b"".join(b"line %d\n" % i for i in range(600_000)))
    session.ok("cd /big && git init -q && git add f && GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a "
               "GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a git commit -q -m f")
    session.ok("echo more >> f")
    started = time.monotonic()
    assert session.ok("git diff --stat") == " f | Bin\n 1 file changed, 0 insertions(+), " \
        "0 deletions(-)\n"
    assert "Binary files a/f and b/f differ\n" in session.ok("git diff")
    assert time.monotonic() - started < 30
