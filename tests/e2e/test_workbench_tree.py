"""The workbench's file tree, driven as a person would (clicks, keys, drag and drop of real
files from the desktop through Chromium's own drag events), each outcome checked on the disk
through the JS API and, after a reload, in the tree again (web/app/tree_view.mjs,
tree_actions.mjs, upload.mjs; docs/workbench.md)."""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

import pytest

from .conftest import js, poll_page, type_line
from .workbench import (
    exists,
    open_folder,
    read_text,
    reload,
    reset_status,
    reveal,
    row_selector,
    select,
    status,
    wait_row,
    wait_workbench,
)


@pytest.fixture(scope="module")
def tree(app):
    """The booted app, its tree ready, /workspace/t made."""
    wait_workbench(app)
    js(app, "await vfs.mkdir('/workspace/t', {recursive: true});")
    return app


def focused_path(page) -> str:
    return page.evaluate("document.activeElement?.dataset?.path ?? null")


def test_a_file_the_shell_writes_appears_at_once(tree):
    open_folder(tree, "/workspace/t")
    type_line(tree, "echo hi > /workspace/t/new.txt")
    wait_row(tree, "/workspace/t/new.txt")
    type_line(tree, "rm /workspace/t/new.txt")
    wait_row(tree, "/workspace/t/new.txt", present=False)


def test_keys_follow_the_tree_pattern(tree):
    js(tree, "await vfs.mkdir('/workspace/t/keys/inner', {recursive: true});"
             "await vfs.writeFile('/workspace/t/keys/a.txt', 'a');")
    select(tree, "/workspace/t/keys")
    row = tree.locator(row_selector("/workspace/t/keys"))
    assert row.get_attribute("aria-expanded") == "false"
    assert row.get_attribute("tabindex") == "0"
    tree.keyboard.press("ArrowRight")
    poll_page(tree, f"document.querySelector({row_selector('/workspace/t/keys')!r})"
                    ".getAttribute('aria-expanded') === 'true'", "the folder to open")
    tree.keyboard.press("ArrowRight")
    assert focused_path(tree) == "/workspace/t/keys/inner"  # folders first
    tree.keyboard.press("ArrowDown")
    assert focused_path(tree) == "/workspace/t/keys/a.txt"
    file_row = tree.locator(row_selector("/workspace/t/keys/a.txt"))
    assert file_row.get_attribute("aria-level") == "4"
    assert file_row.get_attribute("aria-selected") == "true"
    tree.keyboard.press("ArrowLeft")
    assert focused_path(tree) == "/workspace/t/keys"
    tree.keyboard.press("ArrowLeft")
    assert row.get_attribute("aria-expanded") == "false"
    tree.keyboard.press("Home")
    assert focused_path(tree) == "/scoops"
    # One row of the tree is in the tab order: the focused one (roving tabindex).
    assert tree.evaluate("document.querySelectorAll('.tree-row[tabindex=\"0\"]').length") == 1


# Type-ahead's characters form one prefix when each comes within 1 s of the last
# (tree_view.mjs, TYPE_AHEAD_MS): a pause longer than that starts a new one.
TYPE_AHEAD_PAUSE_S = 1.2


def test_typing_moves_to_the_next_row_whose_name_starts_with_it(tree):
    names = ["qat/", "qbit.txt", "qoph.txt", "quark.txt", "quay.txt", "xeno.txt"]
    js(tree, """for (const name of args[0]) {
                  const path = '/workspace/t/ahead/' + name;
                  if (name.endsWith('/')) await vfs.mkdir(path, {recursive: true});
                  else await vfs.writeFile(path, name);
                }""", names)
    open_folder(tree, "/workspace/t/ahead")
    tree.locator(row_selector("/workspace/t/ahead")).focus()
    tree.keyboard.type("qu")  # two quick characters: one prefix
    assert focused_path(tree) == "/workspace/t/ahead/quark.txt"
    quark = row_selector("/workspace/t/ahead/quark.txt")
    assert tree.get_attribute(quark, "aria-selected") == "true"
    time.sleep(TYPE_AHEAD_PAUSE_S)
    tree.keyboard.press("q")  # one character: the next row after the focused one
    assert focused_path(tree) == "/workspace/t/ahead/quay.txt"
    tree.keyboard.press("q")  # the same again: on to the next, from the top after the last
    assert focused_path(tree) == "/workspace/t/ahead/qat"
    time.sleep(TYPE_AHEAD_PAUSE_S)
    tree.keyboard.type("quay")
    assert focused_path(tree) == "/workspace/t/ahead/quay.txt"
    time.sleep(TYPE_AHEAD_PAUSE_S)
    tree.keyboard.press("Shift+X")  # not case-sensitive
    assert focused_path(tree) == "/workspace/t/ahead/xeno.txt"
    tree.keyboard.press("z")  # no name starts with it: the focus stays
    assert focused_path(tree) == "/workspace/t/ahead/xeno.txt"


def test_new_file_and_folder_are_named_in_place(tree):
    select(tree, "/workspace/t")
    reset_status(tree)
    tree.click("#files-pane [data-action=new-folder]")
    tree.wait_for_selector(".tree-row input")
    tree.keyboard.press("Control+a")
    tree.keyboard.type("made")
    tree.keyboard.press("Enter")
    wait_row(tree, "/workspace/t/made")
    assert js(tree, "return (await vfs.stat('/workspace/t/made')).isDirectory();")
    tree.click("#files-pane [data-action=new-file]")  # into the focused folder, /workspace/t/made
    tree.wait_for_selector(".tree-row input")
    tree.keyboard.press("Control+a")
    tree.keyboard.type("notes.md")
    tree.keyboard.press("Enter")
    wait_row(tree, "/workspace/t/made/notes.md")
    assert read_text(tree, "/workspace/t/made/notes.md") == ""
    reload(tree)
    reveal(tree, "/workspace/t/made/notes.md")


def test_rename_in_place_and_a_bad_name_changes_nothing(tree):
    js(tree, "await vfs.writeFile('/workspace/t/old.txt', 'kept');")
    select(tree, "/workspace/t/old.txt")
    tree.keyboard.press("F2")
    tree.wait_for_selector(".tree-row input")
    tree.keyboard.press("Control+a")
    tree.keyboard.type("a/b")
    reset_status(tree)
    tree.keyboard.press("Enter")
    assert "no “/”" in status(tree, "failed")
    assert read_text(tree, "/workspace/t/old.txt") == "kept"
    tree.keyboard.press("F2")
    tree.wait_for_selector(".tree-row input")
    tree.keyboard.press("Control+a")
    tree.keyboard.type("new name.txt")
    tree.keyboard.press("Enter")
    wait_row(tree, "/workspace/t/new name.txt")
    assert not exists(tree, "/workspace/t/old.txt")
    assert read_text(tree, "/workspace/t/new name.txt") == "kept"
    reload(tree)
    reveal(tree, "/workspace/t/new name.txt")


def test_delete_and_undo(tree):
    js(tree, "await vfs.mkdir('/workspace/t/gone/deep', {recursive: true});"
             "await vfs.writeFile('/workspace/t/gone/deep/f.txt', 'back');")
    select(tree, "/workspace/t/gone")
    reset_status(tree)
    tree.keyboard.press("Delete")
    assert "Deleted /workspace/t/gone" in status(tree)
    wait_row(tree, "/workspace/t/gone", present=False)
    assert not exists(tree, "/workspace/t/gone")
    reset_status(tree)
    tree.click("#files-status button:text('Undo')")
    assert "Restored" in status(tree)
    assert read_text(tree, "/workspace/t/gone/deep/f.txt") == "back"
    reload(tree)
    reveal(tree, "/workspace/t/gone/deep/f.txt")


def test_download_a_file_and_a_folder_as_zip(tree):
    js(tree, "await vfs.mkdir('/workspace/t/zipme/sub', {recursive: true});"
             "await vfs.writeFile('/workspace/t/zipme/a.txt', 'alpha');"
             "await vfs.writeFile('/workspace/t/zipme/sub/b.txt', 'beta');")
    tree.evaluate("window.__pickSaveFile = null")  # a Blob URL's download, which Playwright sees
    select(tree, "/workspace/t/zipme/a.txt")
    with tree.expect_download() as file_download:
        tree.click("#files-pane [data-action=download]")
    assert file_download.value.suggested_filename == "a.txt"
    assert Path(file_download.value.path()).read_bytes() == b"alpha"
    select(tree, "/workspace/t/zipme")
    with tree.expect_download() as zip_download:
        tree.click("#files-pane [data-action=download]")
    assert zip_download.value.suggested_filename == "zipme.zip"
    with zipfile.ZipFile(Path(zip_download.value.path())) as archive:
        names = [name for name in archive.namelist() if not name.endswith("/")]
        contents = {name: archive.read(name) for name in names}
    assert contents == {"a.txt": b"alpha", "sub/b.txt": b"beta"}


def drop(page, folder_or_files: list[str], path: str) -> None:
    """Drag ``folder_or_files`` (paths on this machine) from the desktop onto the row of
    ``path``: Chromium's own drag events (CDP Input.dispatchDragEvent), so the page gets a real
    DataTransfer with its files and folder entries."""
    box = page.locator(row_selector(path)).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)
    data = {"items": [], "files": folder_or_files, "dragOperationsMask": 1}
    for kind in ("dragEnter", "dragOver", "drop"):
        cdp.send("Input.dispatchDragEvent", {"type": kind, "x": x, "y": y, "data": data})
    cdp.detach()


@pytest.mark.timeout(600)
def test_drop_a_folder_of_500_files(tree, tmp_path):
    folder = tmp_path / "site"
    for i in range(500):
        part = folder / f"part{i % 5}"
        part.mkdir(parents=True, exist_ok=True)
        (part / f"f{i:03}.txt").write_text(f"file {i}")
    select(tree, "/workspace/t")
    reset_status(tree)
    drop(tree, [str(folder)], "/workspace/t")
    assert "Uploaded 500 files" in status(tree)
    names = js(tree, "return vfs.readdir('/workspace/t/site', {recursive: true});")
    assert len([n for n in names if n.endswith(".txt")]) == 500
    assert read_text(tree, "/workspace/t/site/part3/f123.txt") == "file 123"
    reload(tree)
    reveal(tree, "/workspace/t/site/part3")


def test_a_failed_upload_leaves_nothing(tree, tmp_path):
    folder = tmp_path / "clash"
    folder.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (folder / name).write_text(name)
    js(tree, "await vfs.mkdir('/workspace/t/clash', {recursive: true});"
             "await vfs.writeFile('/workspace/t/clash/b.txt', 'mine');")
    reveal(tree, "/workspace/t/clash")
    reset_status(tree)
    drop(tree, [str(folder)], "/workspace/t")
    assert "nothing was written" in status(tree, "failed")
    assert js(tree, "return vfs.readdir('/workspace/t/clash');") == ["b.txt"]
    assert read_text(tree, "/workspace/t/clash/b.txt") == "mine"


@pytest.mark.timeout(600)
def test_a_folder_of_10000_entries_draws_only_what_shows(tree):
    js(tree, "await vfs.step(async (tx) => { await tx.mkdir('/workspace/t/big');"
             " for (let i = 0; i < 10000; i++) await tx.writeFile(`/workspace/t/big/f${String(i)"
             ".padStart(5, '0')}.txt`, ''); });")
    select(tree, "/workspace/t/big")
    tree.keyboard.press("ArrowRight")
    wait_row(tree, "/workspace/t/big/f00000.txt")
    first = tree.locator(row_selector("/workspace/t/big/f00000.txt"))
    assert first.get_attribute("aria-setsize") == "10000"
    assert tree.evaluate("document.querySelectorAll('.tree-row').length") < 120
    # Scrolled by the wheel as a person would: the rows at the end are drawn, few at a time.
    tree.hover(row_selector("/workspace/t/big/f00000.txt"))
    last = "/workspace/t/big/f09999.txt"
    for _ in range(60):
        tree.mouse.wheel(0, 5000)
        if tree.locator(row_selector(last)).count():
            break
    wait_row(tree, last)
    assert tree.locator(row_selector(last)).is_visible()
    assert tree.evaluate("document.querySelectorAll('.tree-row').length") < 120
    # End: the tree's last row, focused and scrolled into view (the focused row stays drawn).
    tree.locator(row_selector("/workspace/t/big")).focus()  # focused by ArrowRight: still drawn
    tree.keyboard.press("End")
    end = tree.locator(".tree-row:focus")
    assert end.is_visible()
    assert end.get_attribute("aria-posinset") == end.get_attribute("aria-setsize")
    tree.keyboard.press("Home")
    select(tree, "/workspace/t/big")
    tree.keyboard.press("ArrowLeft")


def test_scoops_and_mounted_folders_are_marked(tree):
    js(tree, "await vfs.scoop('marked');")
    reveal(tree, "/scoops/marked")
    badge = tree.locator(f"{row_selector('/scoops/marked')} .badge")
    assert badge.text_content() == "scoop"
