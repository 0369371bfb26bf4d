"""`serve` and `open`: the shell's way into the preview (URLs printed and handed to the page),
each URL under a fresh token naming its preview root."""

from __future__ import annotations

import pytest
from shell_session import fail


@pytest.fixture
def sh(sh):
    sh.ok("mkdir -p '/w/my site/pages' && cd '/w/my site' && touch index.html pages/ü.html")
    return sh


def test_serve_opens_the_index_of_the_current_directory(sh):
    result = sh("serve")
    assert (result.code, result.stderr) == (0, "")
    assert sh.opened(result) == [("/w/my site", "folder", "index.html")]
    assert result.stdout == f"Serving '/w/my site' at {result.open_urls[0]}\n"


def test_serve_takes_a_directory_and_an_entry(sh):
    assert sh.opened(sh("cd / && serve --entry pages/ü.html 'w/my site'")) == [
        ("/w/my site", "folder", "pages/%C3%BC.html")]
    assert sh("serve --entry=pages/ü.html /w/my\\ site").code == 0
    assert sh.opened(sh("serve /w/my\\ site --entry pages")) == [("/w/my site", "folder", "pages")]


@pytest.mark.parametrize(("line", "message"), [
    ("serve --entry ../x.html", "serve: --entry '../x.html': must stay inside DIR ('..' is not "
                                "allowed)\n"),
    ("serve --entry pages/../../x", "serve: --entry 'pages/../../x': must stay inside DIR ('..' "
                                    "is not allowed)\n"),
    ("serve --entry /w/my\\ site/index.html", "serve: --entry '/w/my site/index.html': must be "
                                              "relative to DIR, not absolute\n"),
    ("serve --entry", "serve: option '--entry' requires an argument\n"),
    ("serve -x", "serve: unrecognized option '-x'\n"),
    ("serve a b", "serve: extra operand 'b'\n"),
])
def test_serve_refuses_an_entry_outside_dir_and_bad_usage(sh, line, message):
    result = sh(line)
    fail(result, 2, message)
    assert result.open_urls == []


def test_serve_fails_clearly_for_a_missing_dir_or_entry(sh):
    fail(sh("serve /nope"), 1, "serve: /nope: No such file or directory\n")
    fail(sh("serve index.html"), 1, "serve: index.html: Not a directory\n")
    fail(sh("serve --entry nope.html"), 1, "serve: no nope.html in '/w/my site'\n")
    fail(sh("serve pages"), 1,
         "serve: no index.html in '/w/my site/pages' (choose another with --entry FILE)\n")
    assert sh("serve /nope").open_urls == []


def test_open_roots_each_preview_at_its_path_and_a_directory_ends_in_a_slash(sh):
    result = sh("open index.html pages /")
    file, pages, root = result.open_urls
    assert result.stdout == f"index.html -> {file}\npages -> {pages}\n/ -> {root}\n"
    assert sh.opened(result) == [("/w/my site/index.html", "file", "index.html"),
                                 ("/w/my site/pages", "folder", ""), ("/", "folder", "")]
    assert pages.endswith("/") and root.endswith("/")
    assert len(set(result.open_urls)) == 3  # every root has its own token
