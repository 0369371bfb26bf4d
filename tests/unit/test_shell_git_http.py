"""`git clone`, `fetch`, `pull` and `push` over smart HTTP against a local `git http-backend`
(tests/unit/git_server.py), real git verifying what was pushed; a scoop without network is
refused; Ctrl-C stops a long git run with status 130."""

from __future__ import annotations

import asyncio
import contextvars
import shutil
import sys
import time

import pytest

if sys.platform == "emscripten":
    pytest.skip("the local git server runs `git http-backend` as a process and listens on a "
                "socket, which Pyodide cannot do", allow_module_level=True)
pytest.importorskip("dulwich")
if shutil.which("git") is None:
    pytest.skip("real git is not installed (sh build/setup.sh --test installs it)",
                allow_module_level=True)

from git_server import GitServer, bare_repository, git
from shell_session import Session

IDENTITY = ("export GIT_AUTHOR_NAME=Me GIT_AUTHOR_EMAIL=me@example.com GIT_COMMITTER_NAME=Me "
            "GIT_COMMITTER_EMAIL=me@example.com GIT_AUTHOR_DATE='@1700000000 +0000' "
            "GIT_COMMITTER_DATE='@1700000000 +0000'")


@pytest.fixture
def server(tmp_path):
    bare = bare_repository(tmp_path)
    served = GitServer(tmp_path)
    yield served, bare
    served.close()


def test_clone_commit_push_and_real_git_verifies(server):
    served, bare = server
    sh = Session()
    url = f"{served.url}/project.git"
    cloned = sh(f"mkdir -p /w && cd /w && git clone {url}")
    assert (cloned.code, cloned.stderr) == (0, "Cloning into 'project'...\n"), cloned
    assert sh.ok("cd /w/project && git log --oneline") == git(bare, "log", "--oneline")
    assert sh.ok("cat README.md") == "line 0\nline 1\nline 2\n"
    assert sh.ok("git status") == ("On branch main\nYour branch is up to date with "
                                   "'origin/main'.\n\nnothing to commit, working tree clean\n")
    sh.ok(f"{IDENTITY} && echo new > new.txt && git add new.txt && git commit -q -m 'from vfs'")
    assert "ahead of 'origin/main' by 1 commit" in sh.ok("git status")
    pushed = sh("git push")
    head = sh.ok("git rev-parse HEAD").strip()
    assert pushed.code == 0, pushed
    assert pushed.stderr.startswith(f"To {url}\n")
    assert git(bare, "rev-parse", "main").strip() == head
    git(bare, "fsck", "--strict")
    assert git(bare, "log", "--format=%s", "-n", "1").strip() == "from vfs"
    assert git(bare, "show", "main:new.txt") == "new\n"
    assert "up to date with 'origin/main'" in sh.ok("git status")


def test_fetch_pull_and_a_rejected_push(server, tmp_path):
    served, bare = server
    sh = Session()
    url = f"{served.url}/project.git"
    sh.ok(f"mkdir -p /w && cd /w && git clone -q {url} p && cd p")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(bare), str(other))
    (other / "more.txt").write_text("more\n")
    git(other, "add", ".")
    git(other, "commit", "-q", "-m", "more")
    git(other, "push", "-q", "origin", "main")
    fetched = sh("git fetch")
    assert fetched.code == 0 and "origin/main" in fetched.stderr, fetched
    assert "behind 'origin/main' by 1 commit" in sh.ok("git status")
    pulled = sh("git pull")
    assert pulled.code == 0 and "Fast-forward" in pulled.stdout, pulled
    assert sh.ok("cat more.txt") == "more\n"
    # A commit the server does not have is pushed; then the server moves on and ours is stale.
    (other / "more.txt").write_text("changed\n")
    git(other, "pull", "-q")
    git(other, "commit", "-q", "-am", "change")
    git(other, "push", "-q", "origin", "main")
    sh.ok(f"{IDENTITY} && echo mine > mine.txt && git add . && git commit -q -m mine")
    rejected = sh("git push")
    assert rejected.code == 1 and "[rejected]" in rejected.stderr, rejected
    merged = sh(f"{IDENTITY} && git pull")
    assert merged.code == 0 and "Merge made by the 'ort' strategy." in merged.stdout, merged
    assert sh("git push").code == 0
    git(bare, "fsck", "--strict")
    assert git(bare, "log", "--format=%s", "-n", "1").strip() == f"Merge branch 'main' of {url}"


def test_shallow_single_branch_clone(server):
    served, bare = server
    git(bare, "branch", "other", "main~1")
    sh = Session()
    sh.ok(f"mkdir -p /w && cd /w && git clone -q --depth 1 {served.url}/project.git s")
    assert sh.ok("cd /w/s && git log --oneline").count("\n") == 1
    assert sh.ok("git branch -a") == "* main\n  remotes/origin/HEAD\n  remotes/origin/main\n"
    sh.ok(f"cd /w && git clone -q -b other --single-branch {served.url}/project.git o")
    assert sh.ok("cd /w/o && git branch") == "* other\n"
    assert sh.ok("git log --oneline").count("\n") == 2


def test_errors_name_the_url():
    sh = Session()
    refused = sh("git clone ssh://host/x.git")
    assert refused.code == 128 and "only http:// and https://" in refused.stderr
    gone = sh("git clone http://127.0.0.1:9/x.git y")
    assert gone.code == 128 and gone.stderr.startswith("Cloning into 'y'...\nfatal: unable "
                                                       "to access 'http://127.0.0.1:9/x.git/'")
    assert sh("ls /y").code != 0  # nothing left behind


def test_a_scoop_without_network_is_refused_as_curl_is(server):
    served, _ = server
    # The refusal's words are the transport's (http_transport.network_refusal).
    from types import SimpleNamespace

    from py_vfs.shell.commands.git_http import client_for
    from py_vfs.shell.commands.git_repo import GitError
    bound = SimpleNamespace(ctx=SimpleNamespace(vfs=SimpleNamespace(network=False,
                                                                    writer="scoop:s")))
    with pytest.raises(GitError) as refused:
        client_for(bound, f"{served.url}/project.git")
    assert "scoop 's' has no network access (its creator did not allow it)" in str(refused.value)


def test_ctrl_c_stops_a_long_git_run():
    from py_vfs.core import cancel
    sh = Session()
    sh.ok("mkdir -p /big && cd /big && git init -q && for i in $(seq 1 3000); do "
          "echo $i > f$i; done")

    signal = cancel.Signal()

    async def interrupted() -> tuple[int, float]:
        cancel.SIGNAL.set(signal)  # this task's context only (asyncio.Runner keeps its own)
        running = asyncio.ensure_future(sh.shell.run("git add ."))
        await asyncio.sleep(0.3)
        assert not running.done()
        started = time.monotonic()
        signal.abort()  # Ctrl-C
        result = await asyncio.wait_for(running, 10)
        return result.code, time.monotonic() - started

    code, took = sh.runner.run(interrupted(),
                               context=contextvars.copy_context())
    assert code == 130 and took < 2
    assert sh("git status --porcelain").code == 0  # the repository is still usable
