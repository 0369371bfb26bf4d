"""The shell's `git` in the page (Pyodide, JSPI): dulwich's wheels installed on first use, a
clone from a local smart-HTTP server (`git http-backend`, another origin with CORS), a commit
and a push that real git verifies on the server."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from .conftest import BOOT_JS, booted_app, open_app, sh

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from git_server import GitServer, bare_repository, git

pytestmark = pytest.mark.skipif(shutil.which("git") is None,
                                reason="real git is not installed (sh build/setup.sh --test)")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("git-server")
    bare = bare_repository(root)
    served = GitServer(root)
    yield served, bare
    served.close()


@pytest.fixture(scope="module")
def app(browser, browser_context_args):
    with booted_app(browser, browser_context_args) as session:
        yield session.page


def test_clone_log_commit_push_in_the_page(app, server):
    served, bare = server
    url = f"{served.url}/project.git"
    cloned = sh(app, f"mkdir -p /gitwork && cd /gitwork && git clone {url} p")
    assert (cloned["code"], cloned["stderr"]) == (0, "Cloning into 'p'...\n"), cloned
    log = sh(app, "cd /gitwork/p && git log --oneline")
    assert log["stdout"] == git(bare, "log", "--oneline"), log
    committed = sh(app, "cd /gitwork/p && export GIT_AUTHOR_NAME=Page "
                   "GIT_AUTHOR_EMAIL=page@example.com GIT_COMMITTER_NAME=Page "
                   "GIT_COMMITTER_EMAIL=page@example.com && echo hi > page.txt && "
                   "git add page.txt && git commit -q -m 'from the page'")
    assert committed["code"] == 0, committed
    pushed = sh(app, "cd /gitwork/p && git push")
    assert pushed["code"] == 0, pushed
    head = sh(app, "cd /gitwork/p && git rev-parse HEAD")["stdout"].strip()
    assert git(bare, "rev-parse", "main").strip() == head
    git(bare, "fsck", "--strict")
    assert git(bare, "show", "main:page.txt") == "hi\n"


def test_git_after_a_boot_from_the_shipped_snapshot(browser, browser_context_args):
    """The runtime snapshot is made without the git modules (they import dulwich): after a
    boot from it, git's first run installs dulwich, merge3 and our own wheel's files again."""
    context = browser.new_context(**browser_context_args)  # the snapshot on (no NO_SNAPSHOT)
    try:
        app = open_app(context)
        booted = app.page.evaluate(BOOT_JS)["from"]
        result = sh(app.page, "git init -q /snap && cd /snap && echo a > a && git add a && "
                    "GIT_AUTHOR_NAME=S GIT_AUTHOR_EMAIL=s@x GIT_COMMITTER_NAME=S "
                    "GIT_COMMITTER_EMAIL=s@x GIT_AUTHOR_DATE='@0 +0000' "
                    "GIT_COMMITTER_DATE='@0 +0000' git commit -q -m a && git log --oneline")
    finally:
        context.close()
    assert booted != "packages"
    # The same commit id real git makes for this content, names and dates.
    assert (result["stdout"], result["stderr"], result["code"]) == ("b483ad8 a\n", "", 0), result
