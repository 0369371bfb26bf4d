"""The bench cannot hang silently: its CDP calls and its stages are bounded, with a message.

`npm run bench` hung with no output on Chromium 156 (bench/memory.py says why). These tests
prove the two bounds that now stand between a wedged browser and a silent hang: a CDP call that
gets no answer raises CDPTimeout naming the method, and a stage that outlives its bound ends the
run with a message naming the stage and what it waited for.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from chromium import CHROMIUM, CHROMIUM_ARGS

from bench.cdp import CDPTimeout, FlatCDP, debugging_args, free_port
from bench.watchdog import EXIT_TIMEOUT

ROOT = Path(__file__).resolve().parents[2]
NEVER = "new Promise(() => {})"


def test_a_cdp_call_without_an_answer_fails_with_its_method(playwright):
    port = free_port()
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *debugging_args(port)], headless=True
    )
    try:
        page = browser.new_page()
        cdp = FlatCDP(port)
        try:
            target = next(t for t in cdp.targets() if t["type"] == "page")
            session = cdp.attach(target["targetId"])
            assert cdp.call("Runtime.evaluate", {"expression": "6 * 7"}, session=session)[
                "result"]["value"] == 42
            with pytest.raises(CDPTimeout, match=r"Runtime\.evaluate .* no answer within 1 s"):
                cdp.call("Runtime.evaluate", {"expression": NEVER, "awaitPromise": True},
                         session=session, timeout=1)
        finally:
            cdp.close()
        page.close()
    finally:
        browser.close()


def test_a_stage_past_its_bound_ends_the_run_saying_where():
    script = textwrap.dedent("""
        import time
        from bench.watchdog import Watchdog
        watchdog = Watchdog()
        with watchdog.stage("ours W1 run", 1):
            watchdog.waiting_for("the case's result (window.bench.poll)")
            time.sleep(60)
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=30, check=False)
    assert proc.returncode == EXIT_TIMEOUT, proc.stderr
    assert ("stage 'ours W1 run' did not finish within 1 s; it was waiting for the case's "
            "result (window.bench.poll)") in proc.stderr
