"""Default content (py_vfs/defaults.py): installed once, atomically, by the writer ``defaults``;
an upgrade never overwrites a file the user changed; ``reset`` puts the shipped files back."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import aio
import pytest
from helpers import run

from py_vfs import VFS, FsError
from py_vfs.defaults import Bundle, install, installed, reset, version_of
from py_vfs.storage.memory import MemoryStore

README = b"# /shared\nthe layout\n"
SKILLS = b"# Skills\n"
SKILL = b"---\nname: notes\n---\n"


def bundle(files: dict[str, bytes]) -> Bundle:
    return Bundle(version_of(Bundle("", files).hashes), files)


V1 = {"/shared/README.md": README, "/workspace/skills/README.md": SKILLS,
      "/workspace/skills/notes/SKILL.md": SKILL}


def entries_by(vfs: VFS, writer: str) -> list[dict]:
    return [e for e in run(vfs.journal(limit=1000)) if e["writer"] == writer]


def test_first_install_writes_layout_files_and_record_in_one_commit():
    async def go():
        vfs = await VFS.open(MemoryStore())
        before = vfs.revision
        report = await install(vfs, bundle(V1))
        return vfs, before, report

    vfs, before, report = run(go())
    assert report["written"] == sorted(V1) and report["kept"] == []
    for folder in ("/workspace", "/shared", "/scoops"):
        assert vfs.stat(folder).is_dir
    for path, data in V1.items():
        assert run(vfs.read_file(path)) == data
    assert vfs.revision == before + 1  # one commit: all of it, or (on failure) none
    (entry,) = entries_by(vfs, "defaults")
    assert entry["operation"] == "defaults"
    record = run(installed(vfs))
    assert record["version"] == bundle(V1).version
    assert set(record["files"]) == set(V1)


def test_reopening_does_not_install_again_nor_duplicate():
    async def go():
        store = MemoryStore()
        first = await VFS.open(store)
        await install(first, bundle(V1))
        await first.write_file("/workspace/mine.txt", "mine")
        rev = first.revision
        again = await VFS.open(store)
        report = await install(again, bundle(V1))
        return again, rev, report

    again, rev, report = run(go())
    assert report == {"version": bundle(V1).version, "written": [], "kept": []}
    assert again.revision == rev  # nothing committed
    assert again.readdir("/") == ["scoops", "shared", "workspace"]
    assert again.readdir("/workspace/skills") == ["README.md", "notes"]
    assert len(entries_by(again, "defaults")) == 1


def test_a_tab_that_lost_the_race_rechecks_under_the_turn_and_writes_nothing():
    """Two tabs open a fresh disk: the second one's change runs after the first committed (the
    turn orders them) and reads the record again there, so it installs nothing."""
    from py_vfs.defaults import _apply

    async def go():
        store = MemoryStore()
        a, b = await VFS.open(store), await VFS.open(store)
        await install(a, bundle(V1))
        rev = a.revision
        report = await _apply(b, bundle(V1), replace=False)  # past install's early check
        await b.sync()
        return b, rev, report

    b, rev, report = run(go())
    assert report["written"] == [] and b.revision == rev
    assert len(entries_by(b, "defaults")) == 1


def test_the_tab_that_lost_the_race_sees_the_files_the_other_installed():
    """Its install ends caught up: the files are in its index without waiting for a change."""
    async def go():
        store = MemoryStore()
        a, b = await VFS.open(store), await VFS.open(store)
        await install(a, bundle(V1))
        await install(b, bundle(V1))
        return b

    b = run(go())
    assert b.readdir("/shared") == ["README.md"]
    assert b.exists("/workspace/skills/notes/SKILL.md")


@pytest.mark.skipif(aio.stepping_wanted(), reason="needs a real event loop (two tabs at once)")
def test_two_tabs_installing_at_once_install_once():
    async def go():
        store = MemoryStore()
        a, b = await VFS.open(store), await VFS.open(store)
        reports = await asyncio.gather(install(a, bundle(V1)), install(b, bundle(V1)))
        await a.sync()
        return a, reports

    a, reports = run(go())
    assert sorted(len(r["written"]) for r in reports) == [0, len(V1)]
    assert len(entries_by(a, "defaults")) == 1
    assert a.readdir("/shared") == ["README.md"]


def test_a_file_already_at_a_default_path_is_the_users_and_stays():
    async def go():
        vfs = await VFS.open(MemoryStore())  # a disk made before default content existed
        await vfs.write_file("/shared/README.md", "my own readme")
        report = await install(vfs, bundle(V1))
        return vfs, report

    vfs, report = run(go())
    assert report["kept"] == ["/shared/README.md"]
    assert run(vfs.read_file("/shared/README.md")) == b"my own readme"
    assert run(vfs.read_file("/workspace/skills/README.md")) == SKILLS


def test_upgrade_adds_new_files_and_updates_only_untouched_ones():
    v2 = {"/shared/README.md": README + b"v2\n", "/workspace/skills/README.md": SKILLS + b"v2\n",
          "/workspace/skills/notes/SKILL.md": SKILL + b"v2\n", "/shared/NEW.md": b"new\n"}

    async def go():
        vfs = await VFS.open(MemoryStore())
        await install(vfs, bundle(V1))
        await vfs.write_file("/workspace/skills/README.md", "edited by the user")
        await vfs.rm("/workspace/skills/notes/SKILL.md")
        report = await install(vfs, bundle(v2))
        return vfs, report

    vfs, report = run(go())
    assert report["written"] == ["/shared/NEW.md", "/shared/README.md"]
    assert report["kept"] == ["/workspace/skills/README.md"]
    assert run(vfs.read_file("/shared/README.md")) == v2["/shared/README.md"]  # untouched: new
    assert run(vfs.read_file("/shared/NEW.md")) == b"new\n"
    assert run(vfs.read_file("/workspace/skills/README.md")) == b"edited by the user"
    assert not vfs.exists("/workspace/skills/notes/SKILL.md")  # deleted by the user: stays so
    assert run(installed(vfs))["version"] == bundle(v2).version


def test_reset_puts_shipped_files_back_and_leaves_other_files():
    async def go():
        vfs = await VFS.open(MemoryStore())
        await install(vfs, bundle(V1))
        await vfs.write_file("/shared/README.md", "edited")
        await vfs.rm("/workspace/skills", recursive=True)
        await vfs.rm("/scoops", recursive=True)
        await vfs.write_file("/workspace/mine.txt", "mine")
        rev = vfs.revision
        report = await reset(vfs, bundle(V1))
        return vfs, rev, report

    vfs, rev, report = run(go())
    assert report["written"] == sorted(V1) and report["kept"] == []
    for path, data in V1.items():
        assert run(vfs.read_file(path)) == data
    assert vfs.stat("/scoops").is_dir
    assert run(vfs.read_file("/workspace/mine.txt")) == b"mine"
    assert vfs.revision == rev + 1
    assert entries_by(vfs, "defaults")[0]["operation"] == "defaults"


def test_reset_of_a_disk_that_has_it_all_as_shipped_commits_nothing():
    async def go():
        vfs = await VFS.open(MemoryStore())
        await install(vfs, bundle(V1))
        rev = vfs.revision
        report = await reset(vfs, bundle(V1))
        return vfs, rev, report

    vfs, rev, report = run(go())
    assert report["written"] == report["kept"] == []
    assert vfs.revision == rev


def test_reset_leaves_a_directory_standing_at_a_default_path():
    async def go():
        vfs = await VFS.open(MemoryStore())
        await vfs.mkdir("/shared/README.md", recursive=True)
        await vfs.write_file("/workspace", "a file where a folder should be")
        report = await reset(vfs, bundle(V1))
        return vfs, report

    vfs, report = run(go())
    assert report["written"] == []
    assert report["kept"] == sorted(V1)
    assert vfs.stat("/shared/README.md").is_dir
    assert run(vfs.read_file("/workspace")) == b"a file where a folder should be"
    assert vfs.stat("/scoops").is_dir


class FailingStore(MemoryStore):
    """A store whose next logged commit fails, as a full or broken disk would."""

    fail = False

    async def commit_logged(self, base, ops, entry):
        if self.fail:
            raise FsError.of("EIO", "commit")
        return await super().commit_logged(base, ops, entry)


def test_a_failed_install_leaves_nothing():
    async def go():
        store = FailingStore()
        vfs = await VFS.open(store)
        store.fail = True
        with pytest.raises(FsError):
            await install(vfs, bundle(V1))
        store.fail = False
        return vfs, store

    vfs, store = run(go())
    assert vfs.readdir("/") == []
    assert run(installed(vfs)) is None
    assert run(VFS.open(store)).readdir("/") == []


def test_bundle_checks_its_files_against_the_manifest():
    manifest = bundle(V1).manifest()
    assert Bundle.from_manifest(manifest, V1).files == V1
    with pytest.raises(ValueError, match="was not fetched"):
        Bundle.from_manifest(manifest, {k: v for k, v in V1.items() if "notes" not in k})
    with pytest.raises(ValueError, match="does not match"):
        Bundle.from_manifest(manifest, V1 | {"/shared/README.md": b"tampered"})
    with pytest.raises(ValueError, match="is not that of its files"):
        Bundle.from_manifest(manifest | {"version": "0"}, V1)
    bad = json.loads(json.dumps(manifest))
    bad["files"][0]["path"] = "/shared/../etc/x"
    with pytest.raises(ValueError, match="normalized"):
        Bundle.from_manifest(bad, V1)


def test_from_folder_maps_relative_paths_to_the_disk(tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "README.md").write_bytes(README)
    (tmp_path / "shared" / ".hidden").write_bytes(b"x")
    folder = Bundle.from_folder(tmp_path)
    assert folder.files == {"/shared/README.md": README}
    assert folder.version == bundle({"/shared/README.md": README}).version


def test_shell_reset_defaults_asks_first_and_yes_does_it():
    from py_vfs.shell import Shell

    async def go():
        vfs = await VFS.open(MemoryStore())
        await install(vfs, bundle(V1))
        await vfs.write_file("/shared/README.md", "edited")
        shell = Shell(vfs, defaults=bundle(V1))
        asked = await shell.run("reset --defaults")
        untouched = await vfs.read_file("/shared/README.md")
        done = await shell.run(asked.confirm)
        return vfs, asked, untouched, done

    vfs, asked, untouched, done = run(go())
    assert (asked.code, asked.confirm) == (1, "reset --defaults --yes")
    assert "/shared/README.md" in asked.stdout
    assert asked.stderr == "reset: not done: confirm, or run 'reset --defaults --yes'\n"
    assert untouched == b"edited"
    assert done.code == 0 and done.confirm is None
    assert done.stdout.startswith("restored /shared/README.md\n")
    assert run(vfs.read_file("/shared/README.md")) == README
    assert entries_by(vfs, "defaults")[0]["paths"] == ["/shared/README.md"]


def test_shell_reset_needs_defaults_named_and_shipped():
    from py_vfs.shell import Shell

    async def go():
        vfs = VFS.memory()
        return (await Shell(vfs).run("reset -y"), await Shell(vfs).run("reset --defaults -y"),
                await Shell(vfs, defaults=bundle(V1)).run("reset --all"))

    bare, unshipped, unknown = run(go())
    assert bare.code == 2 and "reset --defaults" in bare.stderr
    assert (unshipped.code, unshipped.stderr) == (
        1, "reset: no default content is shipped with this disk\n")
    assert unknown.code == 2 and "--all" in unknown.stderr


def test_webapi_reset_wants_defaults_true():
    from py_vfs.web.webapi import WebAPI

    async def go():
        vfs = await VFS.open(MemoryStore())
        api = WebAPI(vfs, defaults=bundle(V1))
        with pytest.raises(FsError) as refused:
            await api._ops["reset"]({})
        report = await api._ops["reset"]({"defaults": True})
        with pytest.raises(FsError) as unshipped:
            await WebAPI(vfs)._ops["reset"]({"defaults": True})
        return refused.value.code, report, unshipped.value.code

    refused, report, unshipped = run(go())
    assert refused == "EINVAL" and unshipped == "ENOENT"
    assert report["written"] == sorted(V1)


@pytest.mark.skipif(sys.platform == "emscripten", reason="Emscripten (Pyodide) has no processes")
def test_command_line_shell_installs_a_folder_once_and_asks_before_reset(tmp_path):
    folder = tmp_path / "defaults"
    (folder / "shared").mkdir(parents=True)
    (folder / "shared" / "README.md").write_bytes(README)
    shell = [sys.executable, "-m", "py_vfs", "shell", "--disk", str(tmp_path / "cli.db"),
             "--defaults", str(folder)]
    first = subprocess.run([*shell, "-c", "cat /shared/README.md && echo mine > /shared/README.md"],
                           capture_output=True, text=True)
    assert (first.returncode, first.stdout) == (0, README.decode()), first.stderr
    again = subprocess.run([*shell, "-c", "cat /shared/README.md; log --writer defaults"],
                           capture_output=True, text=True)
    assert again.stdout.startswith("mine\n") and again.stdout.count("defaults") == 2  # 1 entry
    typed = subprocess.run(shell, input="reset --defaults\ny\ncat /shared/README.md\n",
                           capture_output=True, text=True)
    assert "Proceed? [y/N] restored /shared/README.md\n" in typed.stdout
    assert typed.stdout.endswith(README.decode() + "py_vfs:/$ \n")


def test_a_scoop_or_a_restricted_view_cannot_reset_the_defaults():
    """The default content lies outside a scoop's view: reset from inside one is refused and
    changes nothing (from the shell's `scoop NAME` and from a view's JS API alike)."""
    from py_vfs.shell import Shell
    from py_vfs.web.webapi import WebAPI

    async def go():
        vfs = await VFS.open(MemoryStore())
        await install(vfs, bundle(V1))
        await vfs.write_file("/shared/README.md", "edited")
        shell = Shell(vfs, defaults=bundle(V1))
        entered = await shell.run("scoop s1")
        refused = await shell.run("reset --defaults --yes")
        view = await vfs.scoop("s2")
        with pytest.raises(FsError) as from_view:
            await WebAPI(view, defaults=bundle(V1))._ops["reset"]({"defaults": True})
        return vfs, entered, refused, from_view.value.code

    vfs, entered, refused, code = run(go())
    assert entered.code == 0
    assert refused.code == 1 and "a scoop cannot reset" in refused.stderr
    assert code == "EACCES"
    assert run(vfs.read_file("/shared/README.md")) == b"edited"
