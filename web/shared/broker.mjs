// The broker: a SharedWorker (one per origin, named "pyvfs-broker") that brings a disk's guest
// tabs to its host tab (docs/architecture.md, "One runtime for every tab"). It runs no Python
// and keeps no data: it knows, per key (a disk's name and durability, web/page/share.mjs),
// which page hosts the disk's runtime, and hands that page each guest's MessagePort. The
// guest then talks to the host's worker directly, so the broker carries no call.
//
// Messages (SHARE, py_vfs/core/messages.py): a page sends "serve" {key, host} once it holds the
// key's Web Lock `pyvfs-serve:<key>`, "leave" when it lets it go; a guest sends "join" {key,
// guest, avoid} with its port, forwarded to the key's host as "joined" {key, guest} with the
// port, or kept until a host serves the key. `avoid`: a host the guest saw go (its lock was
// released); a join is never handed to it, even while its "serve" is still the last word here.
// A host that dies without "leave" is forgotten the moment the lock manager releases its lock
// `pyvfs-host:<key>:<host>`, which the broker waits on.

import { SHARE } from "./protocol.mjs";

// Guests waiting for a host, per key, at most this many (a page that floods joins is bounded).
const WAITING_MAX = 256;

const hosts = new Map(); // key -> {host, port}
const waiting = new Map(); // key -> [{guest, avoid, port}]

function serve(key, host, port) {
  hosts.set(key, { host, port });
  // Forgotten when the host's page goes, however it goes (it holds this lock for its life).
  navigator.locks?.request(`pyvfs-host:${key}:${host}`, async () => {
    if (hosts.get(key)?.host === host) hosts.delete(key);
  });
  const queue = waiting.get(key) ?? [];
  waiting.delete(key);
  for (const entry of queue) join(key, entry);
}

function leave(key, host) {
  if (hosts.get(key)?.host === host) hosts.delete(key);
}

function join(key, entry) {
  const found = hosts.get(key);
  if (found && found.host !== entry.avoid) {
    found.port.postMessage({ type: SHARE.joined, key, guest: entry.guest }, [entry.port]);
    return;
  }
  const queue = waiting.get(key) ?? [];
  if (queue.length >= WAITING_MAX) {
    entry.port.close();
    return;
  }
  queue.push(entry);
  waiting.set(key, queue);
}

function valid(...values) {
  return values.every((value) => typeof value === "string" && value.length > 0 && value.length <= 1024);
}

self.onconnect = ({ ports: [port] }) => {
  port.onmessage = ({ data, ports }) => {
    const { type, key, host, guest } = data ?? {};
    if (type === SHARE.serve && valid(key, host)) serve(key, host, port);
    else if (type === SHARE.leave && valid(key, host)) leave(key, host);
    else if (type === SHARE.join && valid(key, guest) && ports[0]) {
      join(key, { guest, avoid: typeof data.avoid === "string" ? data.avoid : null, port: ports[0] });
    }
  };
};
