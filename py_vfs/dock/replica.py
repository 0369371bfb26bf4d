"""A disk's sync with a dock: push its own journal entries, pull the others' (docs/dock.md).

Pure Python and async, with no thread or socket of its own: every request goes through the
``Transport`` it is given (CPython: ``transport.HttpTransport``; the browser's worker: fetch),
so the same engine runs on CPython and in Pyodide.

What the disk keeps of its sync, in ``meta/dock:state``: the replica's id, the dock revision its
tree was last brought to (``dock``) and its own journal's revision up to which its entries are
on the dock (``pushed``). Its *pending* entries are its journal's entries after ``pushed`` that
change nodes and did not come from the dock (those carry ``dock``: the dock revision).

A sync round: push the pending entries on ``dock`` (their chunks first: the dock says which it
lacks, only those travel, each checked against its hash on arrival); the dock merges them
(``merge.py``) and answers. Then pull the dock's entries after ``dock``: each other replica's
entry becomes a local commit with its writer, time and operation (so ``journal``, ``restore``
and time travel see it as it was made), this replica's own are already here; a last commit
brings any node the dock adjusted (a conflict's copy, a kept edit) to the dock's record. A node
changed locally after the push is left as it is: it goes with the next push. Every step is
idempotent: a push carries its id and each entry its origin, so one sent again is not applied
twice, and a pull resumes from ``dock``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
from collections.abc import Callable
from typing import Any

from ..core.json_text import compact
from ..core.node import Node
from ..vfs import VFS
from .link import Offline, Refusal, Reply, Transport
from .wire import API, MAX_ENTRIES, check_hash, check_record, conflict_name

STATE_KEY = "dock:state"
# The dock revision of the last pulled entry journaled with no node change of its own.
APPLIED_KEY = "dock:applied"
MAX_ROUNDS = 50
PUSH_BYTES = 8 * 1024 * 1024  # entries per push, by their JSON size
DOCK_WRITER = "dock"


class DockReplica:
    """One disk (a ``VFS``) synced with one disk of a dock."""

    def __init__(self, vfs: VFS, url: str, token: str, transport: Transport, *,
                 disk: str | None = None) -> None:
        self.vfs = vfs
        self.url = url.rstrip("/")
        self.token = token
        self.transport = transport
        self.disk = disk
        self.read_only = False
        self.state: dict[str, Any] = {}
        self._lock = asyncio.Lock()
        self._status: dict[str, Any] = {"state": "pending", "pending": 0}  # not synced yet
        self._tasks: list[asyncio.Task[Any]] = []
        self._wake = asyncio.Event()
        self._unwatch: Callable[[], None] | None = None
        self.listeners: list[Callable[[dict[str, Any]], None]] = []

    # ------------------------------------------------------------ the public half

    def status(self) -> dict[str, Any]:
        """``{"state": "synced" | "pending" | "offline" | "error" | "held", "pending": N,
        "head": the dock revision here, "error": the last error}``."""
        return dict(self._status, head=self.state.get("dock", 0))

    async def sync(self, *, confirm: bool = False) -> dict[str, Any]:
        """Push every pending entry and pull the dock's head; returns the status. Raises
        ``Offline`` or ``Refusal`` when it cannot (the status says so too). ``confirm``: apply
        a push the dock held for deleting much of the disk."""
        async with self._lock:
            try:
                await self._sync(confirm)
            except Offline as error:
                self._set("offline", error=str(error))
                raise
            except Refusal as error:
                held = isinstance(error.body, dict) and error.body.get("error") == "held"
                self._set("held" if held else "error", error=str(error))
                raise
            return self.status()

    async def start(self) -> None:
        """Sync in the background: when the dock announces a new head, when this disk
        changes, and every few seconds while offline."""
        self._unwatch = self.vfs.watch("/", lambda *_: self._wake.set(), recursive=True)
        self._tasks = [asyncio.ensure_future(self._background()),
                       asyncio.ensure_future(self._listen())]

    async def detach(self, *, final_sync: bool = True) -> None:
        """Stop the background work (and try one last sync)."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        self._tasks = []
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        if final_sync:
            with contextlib.suppress(Offline, Refusal):
                await self.sync()

    # ------------------------------------------------------------ background

    async def _background(self) -> None:
        delay = 0.5
        while True:
            try:
                await self.sync()
                delay = 0.5
                await self._wake.wait()
                self._wake.clear()
                await asyncio.sleep(0.05)  # let a burst of writes end
            except (Offline, Refusal):
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self._set("error", error=f"{type(error).__name__}: {error}")
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)

    async def _listen(self) -> None:
        while True:
            try:
                async for event in self.transport.events(self._disk_url("events"),
                                                         self._headers()):
                    if event.get("head", 0) != self.state.get("dock"):
                        self._wake.set()
            except asyncio.CancelledError:
                raise
            except Exception:
                pass
            await asyncio.sleep(1.0)

    # ------------------------------------------------------------ requests

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def _disk_url(self, tail: str) -> str:
        return f"{self.url}{API}/disks/{self.disk}/{tail}"

    async def _call(self, method: str, url: str, body: Any = None, raw: bytes | None = None,
                    ok: tuple[int, ...] = (200, 201)) -> Reply:
        headers = self._headers()
        data = raw
        if body is not None:
            data = compact(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        elif raw is not None:
            headers["Content-Type"] = "application/octet-stream"
        try:
            reply = await self.transport.request(method, url, headers, data)
        except OSError as error:
            raise Offline(f"the dock cannot be reached: {error}") from None
        if reply.status in ok:
            return reply
        if reply.status >= 500 or reply.status == 429:
            raise Offline(f"the dock answered {reply.status}")
        try:
            answer = reply.json()
        except ValueError:
            answer = reply.body[:200].decode("utf-8", "replace")
        raise Refusal(reply.status, answer)

    # ------------------------------------------------------------ one sync

    async def _sync(self, confirm: bool) -> None:
        if self.disk is None:
            about = (await self._call("GET", f"{self.url}{API}/token")).json()
            self.disk, self.read_only = about["disk"], about["readOnly"]
        await self._load_state()
        for _ in range(MAX_ROUNDS):
            await self.vfs.sync()
            pending = await self._pending()
            self._status["pending"] = len(pending)
            if pending and self._status["state"] not in ("offline", "error", "held"):
                self._set("pending")  # told at once: the push may take a while, or fail
            if pending and not self.read_only:
                await self._push(pending, confirm)
            head = await self._pull()
            if head == self.state["dock"] and (self.read_only or not await self._pending()):
                self._set("synced")
                return
        self._set("pending", error="still changing after many rounds")

    def _set(self, state: str, error: str | None = None) -> None:
        self._status = {"state": state, "pending": self._status.get("pending", 0)}
        if state == "synced":
            self._status["pending"] = 0
        if error is not None:
            self._status["error"] = error
        for listener in list(self.listeners):
            listener(self.status())

    async def _load_state(self) -> None:
        stored = await self.vfs.exchange.meta(STATE_KEY)
        state = json.loads(stored) if stored is not None else {}
        if state.get("url") != self.url or state.get("disk") != self.disk:
            state = {"replica": state.get("replica") or secrets.token_hex(8),
                     "url": self.url, "disk": self.disk, "dock": 0, "pushed": 0}
            await self._save(state)
        self.state = state

    async def _save(self, state: dict[str, Any]) -> None:
        await self.vfs.exchange.put_meta(STATE_KEY, compact(state))
        self.state = state

    async def _pending(self) -> list[dict[str, Any]]:
        """This disk's own entries not yet on the dock, oldest first, with their origin."""
        exchange = self.vfs.exchange
        low, high = self.state["pushed"] + 1, self.vfs.revision
        if low > high:
            return []
        oldest = await exchange.oldest_entry()
        out = []
        if oldest is None or oldest > low:  # the journal let go of some: send the tree
            out.append(self._whole_tree(high))
            low = high + 1
        aliases = self.state.get("aliases") or {}
        for rev, text in await exchange.entries(low, high):
            entry = json.loads(text)
            if "dock" in entry or not (entry["puts"] or entry["deletes"]):
                continue
            entry["origin"] = {"replica": self.state["replica"], "rev": int(rev)}
            if aliases:
                entry["puts"] = {i: _realiased(r, aliases) for i, r in entry["puts"].items()}
            out.append(entry)
        return out

    def _whole_tree(self, rev: int) -> dict[str, Any]:
        exchange = self.vfs.exchange
        return {"v": 2, "writer": exchange.default_writer, "time": 0, "op": "attach",
                "ops": ["attach"], "puts": exchange.records(),
                "deletes": [], "before": {}, "events": [],
                "origin": {"replica": self.state["replica"], "rev": rev}}

    async def _push(self, pending: list[dict[str, Any]], confirm: bool) -> None:
        for batch in _batches(pending):
            await self._upload(batch)
            first, last = batch[0]["origin"]["rev"], batch[-1]["origin"]["rev"]
            push_id = f"{self.state['replica']}:{first}-{last}:{self.state['dock']}"
            body = {"push": push_id, "base": self.state["dock"], "entries": batch,
                    "confirm": confirm}
            try:
                await self._call("POST", self._disk_url("push"), body)
            except Refusal as refusal:
                if not (isinstance(refusal.body, dict)
                        and refusal.body.get("error") == "missing-chunks"):
                    raise
                await self._upload(batch, force=refusal.body.get("missing"))
                await self._call("POST", self._disk_url("push"), body)
            await self._save({**self.state, "pushed": last})

    async def _upload(self, entries: list[dict[str, Any]],
                      force: list[str] | None = None) -> None:
        """Offer the chunks the entries name; send only those the dock lacks."""
        wanted = sorted({key for entry in entries for record in entry["puts"].values()
                         for key in json.loads(record).get("chunks", ())})
        if not wanted:
            return
        missing: list[str] = list(force or [])
        if force is None:
            for start in range(0, len(wanted), 5000):
                reply = await self._call("POST", self._disk_url("chunks/missing"),
                                         {"hashes": wanted[start:start + 5000]})
                missing.extend(reply.json()["missing"])
        for key in missing:
            data = await self.vfs.exchange.chunk(key)
            if data is None:
                raise Refusal(409, {"error": f"chunk {key} is no longer on this disk"})
            await self._call("PUT", self._disk_url(f"chunks/{check_hash(key)}"), raw=data)

    async def _pull(self) -> int:
        """Apply the dock's entries after ``dock``; returns the dock's head."""
        while True:
            reply = await self._call("GET", self._disk_url(f"log?after={self.state['dock']}"))
            answer = reply.json()
            batch = [(int(item["rev"]), item["entry"]) for item in answer["entries"]]
            if batch:
                await self._apply(batch)
            if not answer.get("more") or not batch:
                return int(answer["head"])

    # ------------------------------------------------------------ applying

    async def _apply(self, batch: list[tuple[int, dict[str, Any]]]) -> None:
        finals: dict[str, Node | None] = {}
        each: list[dict[str, Node | None]] = []  # each entry's changes
        for _, entry in batch:
            changes: dict[str, Node | None] = {}
            for node_id, record in entry["puts"].items():
                check_record(node_id, record)
                changes[node_id] = Node.from_record(node_id, record)
            changes.update(dict.fromkeys(entry["deletes"]))
            finals.update(changes)
            each.append(changes)
        chunks = await self._fetch(finals)
        exchange = self.vfs.exchange
        me = self.state["replica"]
        async with exchange.applying():
            local = await self._unpushed()
            last = batch[-1][0]
            for (rev, entry), changes in zip(batch, each, strict=True):
                if (entry.get("origin") or {}).get("replica") == me:
                    continue
                notes = {"writer": entry["writer"], "time": entry["time"],
                         "ops": entry.get("ops", [entry["op"]]), "dock": rev,
                         "origin": entry.get("origin")}
                if entry.get("conflicts"):
                    notes["conflicts"] = entry["conflicts"]
                local = await self._commit(entry["op"], notes, changes, local, finals, chunks)
            aliases = dict(self.state.get("aliases") or {})
            for _, entry in batch:
                aliases.update(entry.get("aliases") or {})
            state = {**self.state, "dock": last, **({"aliases": aliases} if aliases else {})}
            # A folder of this disk's the dock merged into its own of the same name: what this
            # disk made in it since goes into the dock's too.
            moved = {i: node.changed(parent=aliases[node.parent]) for i in local
                     if (node := exchange.node(i)) is not None
                     and node.parent in aliases}
            await self._commit("sync", {"writer": DOCK_WRITER, "dock": last, "fixup": True},
                               {**finals, **moved}, local - set(moved), finals, chunks, state)
        self.state = state

    async def _fetch(self, finals: dict[str, Node | None]) -> dict[str, bytes]:
        """The chunks the pulled nodes name that this disk does not hold, downloaded and
        checked against their hashes."""
        exchange = self.vfs.exchange
        out: dict[str, bytes] = {}
        for node in finals.values():
            for key in node.chunks if node is not None else ():
                if key in out or exchange.holds(key):
                    continue
                data = await exchange.chunk(key)
                out[key] = data if data is not None else await self._download(key)
        return out

    async def _download(self, key: str) -> bytes:
        data = (await self._call("GET", self._disk_url(f"chunks/{check_hash(key)}"))).body
        if hashlib.sha256(data).hexdigest() != key:
            raise Refusal(502, {"error": f"chunk {key} arrived damaged"})
        return data

    async def _unpushed(self) -> set[str]:
        """The nodes this disk changed that the dock has not seen (made after the push)."""
        return {node_id for entry in await self._pending()
                for node_id in [*entry["puts"], *entry["deletes"]]}

    async def _commit(self, op: str, notes: dict[str, Any], changes: dict[str, Node | None],
                      local: set[str], finals: dict[str, Node | None],
                      chunks: dict[str, bytes], state: dict[str, Any] | None = None
                      ) -> set[str]:
        """Commit ``changes`` (but for the ``local`` nodes) with ``notes``; with ``state``,
        save it in the same commit. Returns ``local`` as it stands after (a stale commit is run
        again on the caught-up disk, with the local nodes read again)."""
        meta = (STATE_KEY, compact(state)) if state is not None else None
        # Another replica's entry that changes nothing here (its folder was merged into one
        # this disk has, its write already arrived...) is still journaled once, with its
        # writer: the marker is the commit's one write.
        marker = (APPLIED_KEY, str(notes.get("dock", "")))
        while not await self.vfs.exchange.apply(
                op, notes, changes, keep=local, finals=finals, chunks=chunks,
                fetch=self._download, conflict_name=conflict_name, meta=meta, marker=marker):
            local = await self._unpushed()
        return local


def _realiased(record: str, aliases: dict[str, str]) -> str:
    """A node record whose folder the dock merged into another (``aliases``) names that one."""
    value = json.loads(record)
    if value.get("parent") not in aliases:
        return record
    return compact({**value, "parent": aliases[value["parent"]]})


def _batches(entries: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    out: list[list[dict[str, Any]]] = [[]]
    size = 0
    for entry in entries:
        weight = len(compact(entry))
        if out[-1] and (len(out[-1]) >= MAX_ENTRIES or size + weight > PUSH_BYTES):
            out.append([])
            size = 0
        out[-1].append(entry)
        size += weight
    return out


async def attach(vfs: VFS, url: str, token: str, *, disk: str | None = None,
                 transport: Transport | None = None, live: bool = True) -> DockReplica:
    """Attach a dock to ``vfs``: sync once (offline is no error: the status says so), then,
    with ``live``, keep syncing in the background until ``detach()``."""
    if transport is None:
        from .transport import HttpTransport

        transport = HttpTransport()
    replica = DockReplica(vfs, url, token, transport, disk=disk)
    with contextlib.suppress(Offline, Refusal):
        await replica.sync()
    if live:
        await replica.start()
    return replica
