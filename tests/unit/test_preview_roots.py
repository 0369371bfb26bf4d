"""Issue 27, finding 1: a preview serves nothing outside its root, however the root or what
is in it changes after its token was minted (py_vfs/hosts/preview.py: ``pin_root`` when a token is
minted, the same check for every path served, the index and listings included)."""

from __future__ import annotations

import pytest
from helpers import run

from py_vfs import VFS, FsError
from py_vfs.hosts.preview import LocalPreviews, PreviewRequest, PreviewResponse, respond
from py_vfs.web.webapi import WebAPI

PRIVATE = b"the user's private notes"


@pytest.fixture
def vfs(vfs: VFS) -> VFS:
    async def fill() -> None:
        await vfs.write_file("/workspace/private.txt", PRIVATE)
        await vfs.write_file("/workspace/site/page.html", "<p>page</p>")
        await vfs.write_file("/workspace/a.html", "<p>a</p>")

    run(fill())
    return vfs


def get(vfs: VFS, previews: LocalPreviews, url: str) -> PreviewResponse:
    """What the preview answers for ``url``, with what the page finds for its token."""
    return run(respond(vfs, previews.request(url)))


def leaks(answer: PreviewResponse) -> bool:
    """Whether ``answer`` shows anything outside the root: the private file's bytes, or a
    listing's entry for it."""
    return PRIVATE in answer.body or b"private.txt</a>" in answer.body


def test_a_directory_index_that_links_out_of_the_root_is_not_served(vfs):
    run(vfs.symlink("/workspace/private.txt", "/workspace/site/index.html"))
    # Unpinned (no token), the index goes through the root's check as every other path.
    direct = run(respond(vfs, PreviewRequest("/", root="/workspace/site", kind="folder")))
    assert not leaks(direct), direct.body
    previews = LocalPreviews(vfs=vfs)
    url = run(previews.root_url("/workspace/site", "folder"))
    for inside in ("", "index.html"):
        answer = get(vfs, previews, url + inside)
        assert not leaks(answer), (inside, answer.body)
    # The folder has no index the root serves: it is listed, without the link that leaves it.
    listing = get(vfs, previews, url)
    assert listing.status == 200 and b"page.html" in listing.body
    assert b"index.html" not in listing.body
    assert get(vfs, previews, url + "index.html").status == 404


def test_a_listing_shows_only_entries_inside_the_root(vfs):
    run(vfs.symlink("/workspace", "/workspace/site/up"))
    run(vfs.symlink("/workspace/private.txt", "/workspace/site/notes.txt"))
    run(vfs.symlink("page.html", "/workspace/site/again.html"))
    run(vfs.symlink("/nowhere", "/workspace/site/dangling"))
    previews = LocalPreviews(vfs=vfs)
    url = run(previews.root_url("/workspace/site", "folder"))
    listing = get(vfs, previews, url).body.decode()
    assert "page.html" in listing and "again.html" in listing
    for name in ("up", "notes.txt", "dangling"):
        assert f">{name}<" not in listing, name
    assert get(vfs, previews, url + "up/private.txt").status == 404


def test_a_scoop_that_swaps_its_served_folder_for_a_link_to_the_disk_root_serves_nothing():
    disk = VFS.memory()
    run(disk.write_file("/workspace/private.txt", PRIVATE))
    previews = LocalPreviews(vfs=disk)
    api = WebAPI(disk, previews=previews)
    scoop = api.channels.child(run(api._ops["scoop"]("mallory")))
    shell = scoop._ops["shell"]
    made = run(shell("cd /scoops/mallory/workspace && mkdir site && echo '<p>mine</p>' > "
                     "site/index.html && open site/"))
    assert made["code"] == 0, made
    [url] = made["open"]
    assert get(disk, previews, url).body == b"<p>mine</p>\n"
    swapped = run(shell("cd /scoops/mallory/workspace && rm -r site && ln -s / site"))
    assert swapped["code"] == 0, swapped
    for inside in ("", "workspace/", "workspace/private.txt", "scoops/"):
        answer = get(disk, previews, url + inside)
        assert answer.status == 404 and not leaks(answer), (inside, answer.body)
    # Opening it again mints a root for what it is now: the scoop's view refuses it.
    again = run(shell("open /scoops/mallory/workspace/site/"))
    assert again["code"] != 0 and again["open"] == []


def test_a_folder_replaced_by_another_folder_is_a_new_root(vfs):
    previews = LocalPreviews(vfs=vfs)
    url = run(previews.root_url("/workspace/site", "folder"))
    assert get(vfs, previews, url + "page.html").status == 200
    run(vfs.rm("/workspace/site", recursive=True))
    run(vfs.write_file("/workspace/site/page.html", "<p>another</p>"))
    assert get(vfs, previews, url + "page.html").status == 404
    fresh = run(previews.root_url("/workspace/site", "folder"))
    assert get(vfs, previews, fresh + "page.html").body == b"<p>another</p>"


def test_a_root_minted_through_a_link_stays_where_the_link_led(vfs):
    run(vfs.write_file("/elsewhere/site/page.html", "<p>elsewhere</p>"))
    run(vfs.symlink("/workspace", "/w"))
    previews = LocalPreviews(vfs=vfs)
    url = run(previews.root_url("/w/site", "folder"))  # pinned as /workspace/site
    assert previews.pinned[url.split("/")[-2]].path == "/workspace/site"
    run(vfs.rm("/w"))
    run(vfs.symlink("/elsewhere", "/w"))
    assert get(vfs, previews, url + "page.html").body == b"<p>page</p>"


def test_a_file_root_replaced_by_a_link_serves_nothing(vfs):
    previews = LocalPreviews(vfs=vfs)
    url = run(previews.root_url("/workspace/a.html", "file")) + "a.html"
    run(vfs.write_file("/workspace/a.html", "<p>a, edited</p>"))
    # Written in place, the file is the same one: its new bytes are served.
    assert get(vfs, previews, url).body == b"<p>a, edited</p>"
    run(vfs.rm("/workspace/a.html"))
    run(vfs.symlink("/workspace/private.txt", "/workspace/a.html"))
    answer = get(vfs, previews, url)
    assert answer.status == 404 and not leaks(answer), answer.body


def test_a_file_opened_through_a_link_is_served_under_the_links_name(vfs):
    run(vfs.symlink("/workspace/a.html", "/workspace/link.html"))
    previews = LocalPreviews(vfs=vfs)
    url = run(previews.root_url("/workspace/link.html", "file"))
    assert get(vfs, previews, url + "link.html").body == b"<p>a</p>"
    assert get(vfs, previews, url + "a.html").status == 404  # one name only
    # Pinned where the link led when it was opened: pointing the link elsewhere changes nothing.
    run(vfs.rm("/workspace/link.html"))
    run(vfs.symlink("/workspace/private.txt", "/workspace/link.html"))
    assert get(vfs, previews, url + "link.html").body == b"<p>a</p>"


def test_a_token_minted_before_roots_were_pinned_serves_nothing(vfs):
    old = PreviewRequest("/page.html", token="old", root="/workspace/site", kind="folder")
    assert run(respond(vfs, old)).status == 404


@pytest.mark.parametrize(("root", "kind", "code"), [
    ("/workspace/a.html", "folder", "ENOTDIR"),
    ("/workspace/site", "file", "EISDIR"),
    ("/workspace/site", "disk", "EINVAL"),
    ("/workspace/missing", "folder", "ENOENT"),
])
def test_minting_a_root_that_is_not_of_its_kind_fails_and_mints_nothing(vfs, root, kind, code):
    previews = LocalPreviews(vfs=vfs)
    with pytest.raises(FsError) as caught:
        run(previews.root_url(root, kind))
    assert caught.value.code == code and previews.roots == {}
