"""The workbench when the storage runs out, in a Chromium whose quota really is small: an
upload over the quota leaves nothing written (web/app/upload.mjs), and the storage warning shows
in the top bar and in the Storage panel once more than 80% is used (web/app/usage_panel.mjs).

How the quota is made small. Chromium's quota override (CDP Storage.overrideQuotaForOrigin) is
enforced, but navigator.storage.estimate() goes on reporting the usage plus 10 GiB, as it does
by default (Chromium's static quota, StaticStorageQuota), so a page never sees its quota near:
checked on 156.0.8078.108. Here the profile's pool is made small by Chromium's own quota settings
(the StorageQuotaSettings feature's PoolSizeBytes: a pool of 16 MiB gives an origin 12 MiB) and
the static quota is turned off, so estimate() tells the quota that is enforced: IndexedDB's
writes fail with QuotaExceededError (ENOSPC) past it. A persistent profile, since an incognito
context's quota is a share of the machine's memory whatever the settings say.

These two feature switches replace Playwright's own --enable-features and --disable-features
for this profile (Chromium reads the last of each)."""

from __future__ import annotations

import os

import pytest

from .conftest import chromium_launch_options, js, open_app, poll_page
from .test_workbench_layout import AXE, AXE_JS
from .test_workbench_tree import drop
from .workbench import reload, reset_status, reveal, row_selector, status, wait_workbench

POOL = 16 * 1024 * 1024
QUOTA = POOL * 3 // 4  # an origin's share of the pool (Chromium: 75%)
SMALL_QUOTA_ARGS = [f"--enable-features=StorageQuotaSettings:PoolSizeBytes/{POOL}",
                    "--disable-features=StaticStorageQuota"]


@pytest.fixture
def small(persistent_browser, tmp_path):
    """The app booted in a persistent profile whose quota is QUOTA, its tree ready."""
    args = chromium_launch_options()["args"] + SMALL_QUOTA_ARGS
    # bypass_csp: the warning test injects axe-core (the app's policy allows its own scripts)
    context = persistent_browser.launch(tmp_path / "profile", args=args, bypass_csp=True)
    page = open_app(context).page
    assert js(page, "return (await vfs.usage()).quotaBytes;") == QUOTA
    wait_workbench(page)
    return page


def test_an_upload_over_the_quota_writes_nothing(small, tmp_path):
    folder = tmp_path / "big"
    folder.mkdir()
    for i in range(16):  # 16 MiB that do not compress nor share a chunk: over the 12 MiB
        (folder / f"part{i:02}.bin").write_bytes(os.urandom(1024 * 1024))
    js(small, "await vfs.mkdir('/workspace/up', {recursive: true});")
    reveal(small, "/workspace/up")
    reset_status(small)
    drop(small, [str(folder)], "/workspace/up")
    text = status(small, "failed")
    assert "nothing was written" in text and "not enough storage space (ENOSPC)" in text, text
    assert js(small, "return vfs.readdir('/workspace/up');") == []
    assert js(small, "return (await vfs.check()).problems;") == []
    reload(small)
    assert js(small, "return vfs.exists('/workspace/up/big');") is False
    reveal(small, "/workspace/up")
    assert small.locator(row_selector("/workspace/up/big")).count() == 0
    # What was refused did not stay in the store: the space is there for a smaller upload.
    assert js(small, "return (await vfs.usage()).storeBytes;") < QUOTA // 4


def test_the_storage_warning_shows_in_the_top_bar_past_80_percent(small):
    assert small.is_hidden(".usage-alert")
    share = js(small, """
      await vfs.mkdir('/workspace/fill', {recursive: true});
      const bytes = new Uint8Array(512 * 1024);
      for (let i = 0; i < 22; i++) {
        for (let at = 0; at < bytes.length; at += 65536) {
          crypto.getRandomValues(bytes.subarray(at, at + 65536));
        }
        await vfs.writeFile(`/workspace/fill/f${i}`, bytes);
        const {storeBytes, quotaBytes} = await vfs.usage();
        if (storeBytes / quotaBytes > 0.85) return storeBytes / quotaBytes;
      }
      return null;
    """)
    assert share is not None and share > 0.85
    poll_page(small, "!document.querySelector('.usage-alert').hidden",
              "the top bar's storage alert to show")
    assert small.text_content(".usage-alert").endswith("% full")
    small.add_script_tag(path=str(AXE))
    assert small.evaluate(AXE_JS) == [], "axe-core, with the storage alert shown"
    small.click(".usage-alert")  # opens the Storage panel, which warns too
    poll_page(small, "!document.querySelector('#history-panel').hidden", "the History tab to open")
    poll_page(small, "document.querySelector('.usage-warning') && "
                     "!document.querySelector('.usage-warning').hidden",
              "the Storage panel's warning")
    assert "Storage is nearly full" in small.text_content(".usage-warning")
