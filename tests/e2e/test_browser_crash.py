"""A browser crash, not only a renderer crash (docs/storage.md, "Durability"): every write
acknowledged before the whole Chromium process tree is SIGKILLed is there after a relaunch on the
same profile, with its bytes; no file is partial; fsck is clean.

test_disk.py's crash test kills the renderer (``Page.crash``), which leaves the browser process,
where IndexedDB lives, running and able to finish what it was given. Here the browser process
and all its children die at once: Playwright starts Chromium as the leader of its own process
group, so one ``killpg`` reaches every process of that browser and nothing else.

Chromium itself sometimes finds its IndexedDB files damaged after such a kill and discards every
database of the origin (docs/storage.md, "When the browser discards the disk": measured with raw
IndexedDB, about one kill in 30-40, strict durability or not). That is the browser's loss, not
ours, and it says so once, to the first open after it: a relaunch that reports it must show a
disk that starts over and the report in ``diagnostics().dataLoss``; the round does not count,
and another is run in its place (a bounded number of times). The second test makes the browser
find damaged files on purpose and checks what the user is told.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import pytest

from .conftest import ROWS, open_app, poll_page
from .test_disk import KIT_JS, VERIFY_JS, WITH_SNAPSHOT, WRITER_JS, vfs_eval

KILLS = 4  # each round is a browser launch and a boot: about 10-20 s on a loaded machine
# Rounds run in place of those in which the browser discarded the origin's IndexedDB.
DISCARDS_AT_MOST = 2

# What a failure shows of the relaunched disk: how it booted, what /crash holds, and the newest
# journal entries (revision, time, writer, operation, paths): whether the lost writes were ever
# committed to this profile's disk, or the disk came back older.
STATE_JS = """
const diagnostics = await vfs.diagnostics();
const crash = (await vfs.exists("/crash")) ? await vfs.readdir("/crash") : null;
const journal = (await vfs.query("SELECT revision, time, writer, operation, paths FROM journal "
  + "ORDER BY revision DESC LIMIT 8")).rows;
return { boot: diagnostics.boot, runtime: diagnostics.runtime, crash, journal };
"""


def browser_pid(user_data_dir: Path) -> int:
    """The pid of the Chromium browser process running on `user_data_dir`.

    Chromium's profile lock, ``SingletonLock``, is a symlink to ``<hostname>-<pid>`` (checked on
    Chromium 156.0.8078.79); the pid is checked against the process's command line before
    anything is killed."""
    host, _, pid = os.readlink(user_data_dir / "SingletonLock").rpartition("-")
    assert host == os.uname().nodename, f"the profile lock names another host: {host}"
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert f"--user-data-dir={user_data_dir}".encode() in cmdline, cmdline[:3]
    assert not any(arg.startswith(b"--type=") for arg in cmdline), "not the browser process"
    return int(pid)


def gone(pid: int) -> bool:
    """True once `pid` no longer runs (absent, or a zombie waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone before or while /proc was read
        return True


def kill_browser(context, user_data_dir: Path) -> None:
    """SIGKILL the browser process of the persistent `context` and every process of its group
    (renderers, the VFS worker, the storage and network services), as one crash."""
    pid = browser_pid(user_data_dir)
    # Playwright 1.65 starts Chromium in a process group of its own, and Chromium's children
    # stay in it (checked on Chromium 156.0.8078.79).
    assert os.getpgid(pid) == pid, "Chromium is not the leader of its own process group"
    with context.expect_event("close", timeout=20_000):
        os.killpg(pid, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while not gone(pid):
        assert time.monotonic() < deadline, f"browser process {pid} still runs 20 s after SIGKILL"
        time.sleep(0.05)


def discarded_since(page, since_ms: float) -> dict | None:
    """The browser's report that it discarded the origin's IndexedDB, if made after `since_ms`
    (ms since the epoch)."""
    loss = vfs_eval(page, "return (await vfs.diagnostics()).dataLoss;")
    return loss if loss and loss["at"] >= since_ms else None


def test_acknowledged_writes_survive_killing_the_whole_browser(persistent_browser, tmp_path):
    profile = tmp_path / "profile"
    rng = random.Random(11)
    acked: list[list[str]] = []  # the previous round's acknowledged writes
    total, kills, discards = 0, 0, []
    killed_at = 0.0
    for round_ in range(KILLS + DISCARDS_AT_MOST + 1):
        context = persistent_browser.launch(profile)
        context.add_init_script(WITH_SNAPSHOT)  # as test_disk's crash test: a user's boot
        context.add_init_script(KIT_JS)
        page = open_app(context).page
        loss = discarded_since(page, killed_at) if round_ else None
        if loss:  # the browser's loss, reported: the disk starts over
            discards.append(loss["message"])
            assert len(discards) <= DISCARDS_AT_MOST, f"the browser discarded the disk {discards}"
            assert not vfs_eval(page, "return await vfs.exists('/crash');"), \
                "the browser reported it discarded the disk, yet /crash is there"
            acked = []
        result = vfs_eval(page, VERIFY_JS, [acked, round_ - 1])
        if result["problems"]:
            shown = vfs_eval(page, STATE_JS)
            pytest.fail(f"after browser kill {round_}: {result['problems']}; the disk then: "
                        f"{shown}", pytrace=False)
        assert result["files"] >= len({path for path, _ in acked})
        if kills - len(discards) == KILLS:
            break
        page.evaluate(WRITER_JS, round_)
        poll_page(page, "window.acks.length > 0 || window.writerError",
                  "the writer's first ack", 60_000)
        time.sleep(rng.uniform(0.1, 1.0))  # where the kill lands among the writes
        acked, error = page.evaluate("[window.acks.slice(), window.writerError]")  # then kill
        killed_at = time.time() * 1000
        kill_browser(context, profile)
        kills += 1
        assert error is None, f"the writer failed before the kill: {error}"
        assert acked, "the writer acknowledged nothing before the kill"
        total += len(acked)
    print(f"{kills} browser kills, {total} acknowledged writes checked; the browser discarded "
          f"the disk after {len(discards)} of them {discards}")


def damage_indexeddb(profile: Path) -> list[str]:
    """Zeroes 64 bytes in the middle of each LevelDB log and table (over 4 KiB) of the profile's
    IndexedDB: the checksum mismatch Chromium finds after some kills. The files it damaged."""
    damaged = []
    for folder in profile.glob("Default/IndexedDB/*.indexeddb.leveldb"):
        for path in folder.iterdir():
            if path.suffix in (".log", ".ldb") and path.stat().st_size > 4096:
                data = bytearray(path.read_bytes())
                middle = len(data) // 2
                data[middle:middle + 64] = bytes(64)
                path.write_bytes(bytes(data))
                damaged.append(path.name)
    return damaged


def test_a_disk_the_browser_discarded_is_reported(persistent_browser, tmp_path):
    """Chromium reports a discarded IndexedDB once, to the first open of the origin after it,
    whichever database that is (the page's early reader's, which never creates the disk, or
    the worker's): the report is kept, `diagnostics().dataLoss` has it in every context, and
    the terminal tells the user why the disk is empty."""
    profile = tmp_path / "profile"
    context = persistent_browser.launch(profile)
    page = open_app(context).page
    vfs_eval(page, "await vfs.writeFile('/kept.txt', 'before the damage'); return null;")
    assert vfs_eval(page, "return (await vfs.diagnostics()).dataLoss;") is None
    context.close()
    assert damage_indexeddb(profile), "no IndexedDB file of the profile to damage"

    before = time.time() * 1000
    context = persistent_browser.launch(profile)
    page = open_app(context).page
    loss = discarded_since(page, before)
    assert loss and "corrupt" in loss["message"], loss
    assert not vfs_eval(page, "return await vfs.exists('/kept.txt');")
    poll_page(page, f"{ROWS}.includes('discarded it')", "the terminal's word on the discarded disk",
              30_000, show=ROWS)
    vfs_eval(page, "await vfs.writeFile('/after.txt', 'a new start'); return null;")
    context.close()

    context = persistent_browser.launch(profile)  # the new disk is kept; the report stays
    page = open_app(context).page
    assert vfs_eval(page, "return await vfs.readFile('/after.txt', 'utf8');") == "a new start"
    assert vfs_eval(page, "return (await vfs.diagnostics()).dataLoss;")["at"] == loss["at"]
    assert "discarded it" not in page.evaluate(ROWS), "the warning is for the visit that found it"
