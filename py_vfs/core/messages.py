"""The messages of the wire, declared once: every kind of message the page, the VFS worker, a
view's port, the realms, the preview relay and the snapshot maker post to each other, with its
fields, grouped by the channel it travels on.

Each channel renders into the generated protocol.mjs (``render_js``, with the operations of
web/protocol.py) as a frozen object of its kinds, ``WIRE.call === "call"``, which every JS module
uses instead of writing the string; ``MESSAGES`` there gives each kind's fields.
tests/unit/test_messages.py holds string kinds out of web/ and checks that every message a JS
module builds (``{type: WIRE.call, id, op, ...}``) carries only its declared fields. Two scripts
cannot import a module: service_worker/sw.js (a classic service worker) and web/realm/frame.js
(the realm frame's bootstrap); the test checks that the kinds they write are declared here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Channel:
    """One channel: its name in JS, what travels on it, and its kinds -> their fields."""

    name: str
    doc: str
    kinds: dict[str, tuple[str, ...]]


def _kinds(spec: str) -> dict[str, tuple[str, ...]]:
    """``"call: id op args; cancel: id"`` -> {"call": ("id", "op", "args"), "cancel": ("id",)}."""
    out = {}
    for entry in spec.split(";"):
        kind, _, fields = entry.partition(":")
        out[kind.strip()] = tuple(fields.split())
    return out


# The page (or a view's client) and the VFS worker: on the worker itself, or on a view's
# MessagePort (docs/api.md, docs/sandbox.md). A call envelope names its writer (CALL_WRITER),
# says whether it may be cancelled (CALL_SIGNAL), carries the request id of a call that may
# change the disk (CALL_REQUEST) and, on a call sent again after a failover, the time it was
# first sent (CALL_RETRY); a result is {value} or {error: envelope}.
WIRE = Channel("WIRE", "the page or a view's client <-> the VFS worker", _kinds(
    # page -> worker, once: the disk to open and the mounts the page keeps
    "open: name cacheBytes snapshot durability retention defaults realm dock; mounts: records;"
    # a call and its answer; a cancel of a call sent with cancellable: true
    "call: id op args writer cancellable request retry; result: id value error; cancel: id;"
    # the calls the page made in one turn, each [id, op, args, writer, request] (none
    # cancellable nor sent again), and
    # answers settled together, each [id, {value} or {error}] (web/page/client.mjs)
    "calls: calls; results: results;"
    # a streamed shell call's output (acknowledged) and its input (asked for, then given)
    "output: id stream data; outputAck: id bytes; inputWanted: id; input: id data;"
    # watch events, the stat cache's invalidation, boot progress and failure
    "watch: id event; invalidate: view; progress: stage message loaded total; failed: message;"
    # the disk's dock: its sync status, posted to every page on each change (docs/dock.md)
    "syncStatus: status;"
    # the worker asks the page (a folder picker, a preview root, to take a catch-up: kind
    # "catchUp", web/shared/peers.mjs), the page replies
    "request: id kind payload; reply: id value error;"
    # a preview request with its body's port (web/page/preview_relay.mjs); a view's port closes
    "preview: request; close:;"
    # the worker asks the page for a realm frame (web/page/realm_frames.mjs)
    "realmOpen: id; realmOpened: id error; realmClose: id;"
    # one runtime for every tab (web/page/share.mjs): the host page hands its worker a guest
    # tab's port, the worker welcomes the guest on it, and each page says which stat cache
    # invalidation it has taken (web/worker/guests.mjs)
    "guest: key guest host; welcome: host; seen: view"))

# A realm's frame and the scripts run in realms or Web Workers (web/worker/realm_pool.mjs,
# web/realm/frame.js, web/realm/jsh_worker.mjs, web/realm/realm_python.mjs; docs/sandbox.md).
RUN = Channel("RUN", "the VFS worker <-> a realm frame and the scripts it runs", _kinds(
    # the page hands a frame its control port; on it the worker spawns and kills workers
    "realm: base; ready:; spawn: id kind; kill: id; died: id message; port:;"
    # a realm's Python: booted once, then runs (``run`` names one)
    "boot: name runtime snapshot wheel fsspec memoryBytes; booted: ms; failed: message;"
    # a run, and a .jsh script's start: what py_vfs/shell/realm.py's CodeStart.to_init gives
    "run: run kind path filename source argv env cwd stdin isatty;"
    "start: kind path filename source argv env cwd stdin isatty fs;"
    # what every run says and is told
    "out: run id data; err: run id data; read: run;"
    "exit: run code; ack: run id; stdin: run data"))

# A preview request's port: the preview service worker, the relay and the app tab serving it
# (docs/preview.md).
BODY = Channel("BODY", "a preview request's port (service worker, relay, VFS worker)", _kinds(
    "ack:; pass:; go:; start: status headers body more; pull:; chunk: data; end:; error: message;"
    "cancel:"))

# Window messages between the relay frame, its app tab and the preview service worker; each
# carries the preview protocol's version (PREVIEW_PROTOCOL).
RELAY = Channel("RELAY", "the relay frame <-> its app tab and the preview service worker", {
    "preview": ("protocol", "token", "request"), "hello": ("protocol",),
    "trusted": ("protocol", "trusted"), "ready": ("protocol",), "failed": ("protocol", "message"),
    "reload": ("protocol",), "skipWaiting": ("protocol",)})
# The relay's kinds travel on windows shared with other code: they are prefixed.
RELAY_PREFIX = {"preview": "pyvfs:preview", "hello": "pyvfs:relay-hello",
                "trusted": "pyvfs:relay-trusted", "ready": "pyvfs:relay-ready",
                "failed": "pyvfs:relay-failed", "reload": "pyvfs:relay-reload",
                "skipWaiting": "pyvfs:relay-skip-waiting"}

# The worker that makes the runtime snapshot (web/worker/snapshot_maker.mjs) answers once.
SNAPSHOT = Channel("SNAPSHOT", "the VFS worker <-> the snapshot maker", _kinds(
    "make: manifest key; stored: size; failed: message"))

# The VFS workers of one disk, on its BroadcastChannel `pyvfs:<name>` (web/shared/peers.mjs,
# docs/architecture.md "Several tabs"): a logged commit, and each other worker's word that it
# applied it (the commit's writer resolves once every live worker has said so).
PEERS = Channel("PEERS", "the VFS workers of one disk (BroadcastChannel pyvfs:<name>)", _kinds(
    "commit: rev from seq; applied: seq from to"))

# The disk's Web Lock held as a lease (web/shared/lock_lease.mjs), on the BroadcastChannel
# `pyvfs-lease:<name>`: a context about to request the lock says so.
LEASE = Channel("LEASE", "the contexts taking turns on a disk's Web Lock (pyvfs-lease:<name>)",
                _kinds("want:"))

# The pages of one origin and the broker that brings a disk's guest tabs to its host tab
# (web/shared/broker.mjs, a SharedWorker; docs/architecture.md "One runtime for every tab"): a
# host says it serves a disk's key, or no longer does; a guest asks to join with a port, which
# the broker hands to the key's host, never to the host `avoid` (one the guest saw go).
SHARE = Channel("SHARE", "the pages of an origin <-> the broker (SharedWorker pyvfs-broker)",
                _kinds(
    "serve: key host; leave: key host; join: key guest avoid; joined: key guest"))

CHANNELS: tuple[Channel, ...] = (WIRE, RUN, BODY, RELAY, SNAPSHOT, PEERS, LEASE, SHARE)


def value_of(channel: Channel, kind: str) -> str:
    """The string a message of ``kind`` carries as its ``type``."""
    return RELAY_PREFIX[kind] if channel is RELAY else kind


def render_js() -> list[str]:
    """The lines of protocol.mjs that declare the channels: one frozen object of kinds per
    channel, and MESSAGES, each channel's kinds with their fields."""
    lines = ["// The messages of the wire, by channel (py_vfs/core/messages.py): kind -> its type."]
    fields = {}
    for channel in CHANNELS:
        kinds = {kind: value_of(channel, kind) for kind in channel.kinds}
        lines.append(f"// {channel.doc}")
        lines.append(f"export const {channel.name} = Object.freeze({json.dumps(kinds)});")
        fields[channel.name] = {kind: list(names) for kind, names in channel.kinds.items()}
    lines.append("// Each message's fields besides its type.")
    lines.append(f"export const MESSAGES = Object.freeze({json.dumps(fields)});")
    return lines


def kind(channel: Channel, name: str) -> str:
    """The ``type`` of ``channel``'s message ``name``, which must be declared (Python's side
    of a channel names its kinds through this, never as bare strings)."""
    if name not in channel.kinds:
        raise KeyError(f"{channel.name} declares no message {name!r}")
    return value_of(channel, name)
