"""A dock and a Postgres cluster as real processes: ``Dock(data, database).start()`` runs
``python -m py_vfs dock --port 0`` on 127.0.0.1 and waits (bounded) until it answers;
``Postgres(base)`` makes a throwaway cluster (Debian's initdb and pg_ctl) on a free port;
``dock_on(backend, ...)`` is both, torn down on leaving. Used by the dock tier's fixtures
(tests/dock/conftest.py), the browser replica's tests (tests/e2e/test_dock_web.py) and the
load benchmark (bench/dock_load.py)."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
START_S = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(what: str, check: Any, seconds: float = START_S, every: float = 0.05) -> Any:
    """Call ``check`` until it answers something true; fail saying ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            found = check()
        except Exception as error:
            last, found = error, None
        if found:
            return found
        time.sleep(every)
    raise AssertionError(f"waited {seconds:.0f} s for {what}" + (f" (last: {last})" if last
                                                                   else ""))


class Dock:
    """One ``python -m py_vfs dock`` process (``kill``, ``start`` again on the same store)."""

    def __init__(self, data: Path, database: str | None, allow_origins: tuple[str, ...] = ()
                 ) -> None:
        self.data, self.database = data, database
        self.allow_origins = allow_origins
        self.process: subprocess.Popen[str] | None = None
        self.url = ""
        self.port = 0

    def _where(self) -> list[str]:
        return ["--data", str(self.data)] + (["--database", self.database]
                                             if self.database else [])

    def start(self) -> Dock:
        argv = [sys.executable, "-m", "py_vfs", "dock", *self._where(), "--host", "127.0.0.1",
                "--port", str(self.port)]
        for origin in self.allow_origins:
            argv += ["--allow-origin", origin]
        self.process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True,
                                        env={**os.environ, "PYTHONPATH": str(ROOT)})
        line = wait_for("the dock to print its address", self._line)
        self.url = line.removeprefix("dock: ").strip()
        self.port = int(self.url.rstrip("/").rsplit(":", 1)[1])
        wait_for(f"the dock at {self.url} to answer", lambda: urllib.request.urlopen(
            self.url, timeout=2).status == 200)
        return self

    def _line(self) -> str | None:
        assert self.process is not None and self.process.stdout is not None
        if self.process.poll() is not None:
            raise AssertionError(f"the dock exited: {self.process.stderr.read()}")
        os.set_blocking(self.process.stdout.fileno(), False)
        line = self.process.stdout.readline()
        return line if line.startswith("dock: ") else None

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def cli(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "py_vfs", "dock", *args, *self._where()],
                              cwd=ROOT, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def token(self, disk: str = "work", *extra: str) -> str:
        return self.cli("token", "--disk", disk, *extra)

    def tokens(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.cli("token", "list").splitlines()]


def _pg_bin(tool: str) -> str:
    found = shutil.which(tool)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{tool}"))
    if not candidates:
        raise AssertionError(f"{tool} not found on PATH or in /usr/lib/postgresql/*/bin: "
                             "build/setup.sh --test installs Debian's postgresql")
    return candidates[-1]


class Postgres:
    """A throwaway cluster: ``url(db)``, ``create(db)``, ``restart()``."""

    def __init__(self, base: Path) -> None:
        self.dir = base / "cluster"
        self.sockets = base / "sockets"
        self.log = base / "postgres.log"
        self.port = free_port()
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            self.prefix = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}",
                           "--clear-groups", "--"]
            os.chmod(base, 0o777)
        self.sockets.mkdir()
        self.log.touch()
        if self.prefix:
            nobody = pwd.getpwnam("nobody")
            for path in (self.sockets, self.log):
                os.chown(path, nobody.pw_uid, nobody.pw_gid)
        self._run([_pg_bin("initdb"), "-D", str(self.dir), "-A", "trust", "-U", "postgres",
                   "-E", "UTF8", "--no-sync"])
        self.start()

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run([*self.prefix, *argv], capture_output=True, text=True,
                              timeout=120, cwd="/")
        if done.returncode:
            raise AssertionError(f"{' '.join(argv)} failed: {done.stdout}{done.stderr}")

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c max_connections=200")
        self._run([_pg_bin("pg_ctl"), "-D", str(self.dir), "-l", str(self.log), "-o", options,
                   "-w", "-t", "60", "start"])

    def stop(self, mode: str = "fast") -> None:
        self._run([_pg_bin("pg_ctl"), "-D", str(self.dir), "-m", mode, "-w", "-t", "60",
                   "stop"])

    def restart(self) -> None:
        self.stop()
        self.start()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create(self, database: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{database}"')
        return self.url(database)


@contextlib.contextmanager
def dock_on(backend: str, data: Path, *, cluster: Postgres | None = None,
            database: str = "dock", allow_origins: tuple[str, ...] = ()) -> Iterator[Dock]:
    """A dock started on ``backend``: ``"sqlite"`` (its files in ``data``) or ``"postgres"``
    (the database ``database``, made in ``cluster``, or in a throwaway cluster made here and
    removed on leaving); the dock is stopped on leaving."""
    base = cluster_dir = None
    dock = None
    try:
        url = None
        if backend == "postgres":
            if cluster is None:
                # Its own folder in /tmp: as root the cluster runs as nobody, who cannot enter
                # a test's tmp_path.
                base = Path(tempfile.mkdtemp(prefix="pyvfs-pg-"))
                cluster_dir = cluster = Postgres(base)
            url = cluster.create(database)
        dock = Dock(data, url, allow_origins).start()
        yield dock
    finally:
        if dock is not None:
            dock.stop()
        if cluster_dir is not None:
            with contextlib.suppress(Exception):
                cluster_dir.stop("immediate")
        if base is not None:
            shutil.rmtree(base, ignore_errors=True)
