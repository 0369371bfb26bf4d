"""The dock tier's fixtures: real dock processes, a real Postgres cluster, CPython replicas.

Every wait is bounded and says what it waited for. A dock runs as ``python -m py_vfs dock
--port 0`` on 127.0.0.1 in a temporary directory; Postgres is Debian's (``build/setup.sh
--test`` installs it): a cluster made with ``initdb`` in a temporary directory, started with
``pg_ctl`` on a free port on 127.0.0.1 (its unix socket in that directory too) and removed after
the session. initdb refuses to run as root: as root the cluster belongs to ``nobody`` and its
commands run through ``setpriv``.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dock_process import Dock, Postgres, dock_on, free_port

# ------------------------------------------------------------------ Postgres


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    base = Path(tempfile.mkdtemp(prefix="pyvfs-pg-"))
    cluster = None
    try:
        cluster = Postgres(base)
        yield cluster
    finally:
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.stop("immediate")
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def docks(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    """``docks()`` starts a dock on this test's store (SQLite under a temporary directory, or a
    fresh Postgres database); called again, another process on the same store."""
    cluster = request.getfixturevalue("postgres") if backend == "postgres" else None
    started: list[Dock] = []
    with contextlib.ExitStack() as stack:

        def start() -> Dock:
            if not started:
                name = "t" + request.node.name.encode().hex()[:40] + str(free_port())
                started.append(stack.enter_context(dock_on(backend, tmp_path / "dock",
                                                           cluster=cluster, database=name)))
            else:
                started.append(Dock(started[0].data, started[0].database).start())
                stack.callback(started[-1].stop)
            return started[-1]

        yield start
