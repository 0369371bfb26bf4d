"""`npm run bench` cannot rot: every workload runs once at tiny size on every adapter and verifies.

The bench itself (bench/run.py) is not part of `npm test`: timed numbers do not belong in tests.
This runs its --smoke mode in a subprocess (it starts its own server and browsers, and the sync
Playwright API cannot nest inside pytest-playwright's) and checks that every case reported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = {"ours", "lightningfs", "zenfs", "rawidb"}
WORKLOADS = {"W1", "W1c", "W2", "W3", "W4", "W5", "W6", "W7", "W8"}


@pytest.mark.timeout(360)  # above its subprocess timeout (300 s), which says more
def test_bench_smoke(tmp_path):
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, "bench/run.py", "--smoke", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    log = f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, f"bench --smoke failed:\n{log}"
    results = json.loads(out.read_text())["results"]
    for workload in WORKLOADS:
        assert set(results[workload]) == ADAPTERS, f"{workload}: {sorted(results[workload])}"
        for adapter, samples in results[workload].items():
            assert samples and all(s["ms"] >= 0 for s in samples), (workload, adapter)
    assert results["B1 cold"]["ours"][0]["ms"] > 0
