"""`serve` and `open`: the shell's way into the preview (URLs printed and handed to the page)."""

from __future__ import annotations

import pytest
from test_shell import Session, fail


@pytest.fixture
def sh():
    session = Session()
    session.ok("mkdir -p '/w/my site/pages' && cd '/w/my site' && touch index.html pages/ü.html")
    yield session
    session.runner.close()


def test_serve_opens_the_index_of_the_current_directory(sh):
    result = sh("serve")
    assert (result.code, result.stderr) == (0, "")
    assert result.open_urls == ["/preview/w/my%20site/index.html"]
    assert result.stdout == "Serving '/w/my site' at /preview/w/my%20site/index.html\n"


def test_serve_takes_a_directory_and_an_entry(sh):
    assert sh("cd / && serve --entry pages/ü.html 'w/my site'").open_urls == [
        "/preview/w/my%20site/pages/%C3%BC.html"]
    assert sh("serve --entry=pages/ü.html /w/my\\ site").code == 0
    assert sh("serve /w/my\\ site --entry pages").open_urls == ["/preview/w/my%20site/pages"]


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


def test_open_prints_each_path_with_its_url_and_a_directory_ends_in_a_slash(sh):
    result = sh("open index.html pages /")
    assert result.stdout == ("index.html -> /preview/w/my%20site/index.html\n"
                             "pages -> /preview/w/my%20site/pages/\n"
                             "/ -> /preview/\n")
    assert result.open_urls == ["/preview/w/my%20site/index.html",
                                "/preview/w/my%20site/pages/", "/preview/"]
