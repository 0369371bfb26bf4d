"""Faults: the dock SIGKILLed mid-push and mid-pull, Postgres restarted mid-sync. After
recovery nothing is lost or duplicated, and fsck is clean on every replica."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

from dock_helpers import converged, replica

from py_vfs.dock.link import Offline, Reply
from py_vfs.dock.transport import HttpTransport


class KillingTransport(HttpTransport):
    """Kills the dock at a chosen request: ``before`` it is sent, or after the dock answered
    but ``after`` the answer is lost to the replica."""

    def __init__(self, dock: Any, route: str, when: str) -> None:
        super().__init__()
        self.dock, self.route, self.when = dock, route, when
        self.fired = False

    async def request(self, method: str, url: str, headers: dict[str, str],
                      body: bytes | None = None) -> Reply:
        if not self.fired and self.route in url:
            self.fired = True
            if self.when == "before":
                self.dock.kill()
            else:
                await super().request(method, url, headers, body)
                self.dock.kill()
                raise ConnectionResetError("the dock died before its answer arrived")
        return await super().request(method, url, headers, body)


async def _settle(dock, a, ra, b, rb, token) -> None:
    dock.start()
    await converged(dock.url, token, (a, ra), (b, rb))


def test_dock_killed_mid_push_loses_and_duplicates_nothing(docks, tmp_path):
    dock = docks()
    token = dock.token()

    async def main() -> None:
        a, ra = await replica(tmp_path / "a.db", dock.url, token, "alice")
        b, rb = await replica(tmp_path / "b.db", dock.url, token, "bob")
        for when in ("after", "before"):
            for number in range(20):
                await a.write_file(f"/{when}/{number}.txt", f"{when} {number}" * 300)
            await a.write_file(f"/{when}/big.bin", bytes(range(256)) * 8000)
            ra.transport = KillingTransport(dock, "/push", when)
            with contextlib.suppress(Offline):
                await ra.sync()
            assert ra.transport.fired
            ra.transport = HttpTransport()
            await _settle(dock, a, ra, b, rb, token)
        assert await b.read_file("/after/3.txt") == b"after 3" * 300
        a.close()
        b.close()

    asyncio.run(main())


def test_dock_killed_mid_upload_and_mid_pull(docks, tmp_path):
    dock = docks()
    token = dock.token()

    async def main() -> None:
        a, ra = await replica(tmp_path / "a.db", dock.url, token, "alice")
        b, rb = await replica(tmp_path / "b.db", dock.url, token, "bob")
        for number in range(6):
            await a.write_file(f"/blob{number}.bin", bytes([number]) * 1_200_000)
        ra.transport = KillingTransport(dock, "/chunks/", "after")
        with contextlib.suppress(Offline):
            await ra.sync()
        ra.transport = HttpTransport()
        dock.start()
        await ra.sync()
        rb.transport = KillingTransport(dock, "/chunks/", "after")  # mid-pull
        with contextlib.suppress(Offline):
            await rb.sync()
        rb.transport = HttpTransport()
        await _settle(dock, a, ra, b, rb, token)
        a.close()
        b.close()

    asyncio.run(main())


def test_postgres_restarted_mid_sync(backend, docks, tmp_path, request):
    if backend != "postgres":
        return
    cluster = request.getfixturevalue("postgres")
    dock = docks()
    token = dock.token()

    async def main() -> None:
        a, ra = await replica(tmp_path / "a.db", dock.url, token, "alice")
        b, rb = await replica(tmp_path / "b.db", dock.url, token, "bob")
        restarted = threading.Event()

        def restart() -> None:
            cluster.restart()
            restarted.set()

        async def writes() -> None:
            for number in range(60):
                await a.write_file(f"/w{number}.txt", str(number) * 50)
                try:
                    await ra.sync()
                except Offline:
                    await asyncio.sleep(0.05)
                if number == 10:
                    threading.Thread(target=restart, daemon=True).start()

        await writes()
        await asyncio.get_running_loop().run_in_executor(None, restarted.wait, 120)
        assert restarted.is_set(), "waited 120 s for Postgres to restart"
        await converged(dock.url, token, (a, ra), (b, rb))
        assert len([p for p in b.readdir("/") if p.startswith("w")]) == 60
        a.close()
        b.close()

    asyncio.run(main())
