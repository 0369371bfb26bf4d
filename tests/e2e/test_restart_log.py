"""The browser's next start has little IndexedDB log to replay after a burst of writes
(web/worker/log_checkpoint.mjs; docs/storage.md, "The log the next start replays"): Chromium
keeps an origin's databases in one LevelDB whose log the first open after a start replays whole."""

from __future__ import annotations

from pathlib import Path

from .conftest import open_app

BURST = 400  # files of 1 KiB: over a MiB of log, far under the size at which LevelDB moves it

WRITE_AND_WAIT = """async ([files, boundMs]) => {
  const vfs = await window.pyvfs.ready;
  await vfs.mkdir("/burst");
  const text = "x".repeat(1024);
  const writes = Array.from({ length: files }, (_, i) => vfs.writeFile(`/burst/f${i}.txt`, text));
  await Promise.all(writes);
  const deadline = Date.now() + boundMs;
  while ((await vfs.diagnostics()).logCheckpoints < 1) {
    if (Date.now() > deadline) throw new Error(`no log checkpoint ${boundMs} ms after the burst`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return (await indexedDB.databases()).map((db) => db.name);
}"""

READ_BACK = """async (files) => {
  const vfs = await window.pyvfs.ready;
  const names = await vfs.readdir("/burst");
  return [names.length, await vfs.readFile(`/burst/f${files - 1}.txt`, "utf8")];
}"""


def log_bytes(profile: Path) -> int:
    """The size of the LevelDB logs of every origin's IndexedDB in a Chromium profile."""
    return sum(path.stat().st_size for path in profile.glob("Default/IndexedDB/*.leveldb/*.log"))


def test_a_burst_of_writes_leaves_the_next_start_little_log_to_replay(persistent_browser, tmp_path):
    profile = tmp_path / "profile"
    session = persistent_browser.open_app(profile)
    databases = session.page.evaluate(WRITE_AND_WAIT, [BURST, 30_000])
    assert "pyvfs-checkpoint" not in databases  # the scratch database is gone again
    session.context.close()
    left = log_bytes(profile)
    # Without the checkpoint the burst's records (over a MiB) would all still be in the log.
    assert left < 64 * 1024, f"{left} bytes of IndexedDB log left for the next start"
    again = open_app(persistent_browser.launch(profile)).page
    assert again.evaluate(READ_BACK, BURST) == [BURST, "x" * 1024]
