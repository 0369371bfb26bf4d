// One runtime for every tab (docs/architecture.md, "One runtime for every tab"): the pages of
// one origin that open a disk with openVFS({runtime: "shared"}) elect one host, the page that
// holds the Web Lock `pyvfs-serve:<key>`; its worker runs the disk's only Python, and every
// other page (a guest) talks to that worker over a MessagePort the broker
// (web/shared/broker.mjs, a SharedWorker) hands from the guest to the host page, which passes it
// on to its worker. A key is a disk's name and its durability: pages that ask for another
// durability get a runtime of their own (web/shared/peers.mjs keeps those consistent).
//
// Locks, each released by the lock manager when its page goes, however it goes:
// - `pyvfs-serve:<key>`: held by the host for its life; taken with ifAvailable, so a page that
//   finds it held joins as a guest;
// - `pyvfs-host:<key>:<host>`: held by the host too; a guest waits on it to learn the moment the
//   host is gone (then it elects again: web/pyvfs.mjs, Instance), and so does the broker;
// - `pyvfs-guest:<key>:<guest>`: held by a guest; the host's worker waits on it to forget the
//   guest (web/worker/guests.mjs).

import { SHARE } from "../shared/protocol.mjs";

let broker = null;

// True where a page can share a runtime: a window with SharedWorker and Web Locks.
export function canShare() {
  return typeof SharedWorker === "function" && typeof navigator !== "undefined" && Boolean(navigator.locks);
}

export function shareKey(name, durability) {
  return `${durability}:${name}`;
}

function brokerPort() {
  if (!broker) {
    const worker = new SharedWorker(new URL("../shared/broker.mjs", import.meta.url), { type: "module", name: "pyvfs-broker" });
    broker = worker.port;
    broker.start();
  }
  return broker;
}

// Takes the Web Lock `name` and holds it: resolves to the function that lets it go, or to null
// when `options.ifAvailable` and another context holds it.
function holdLock(name, options = {}) {
  return new Promise((resolve, reject) => {
    navigator.locks.request(name, options, (lock) => {
      if (!lock) {
        resolve(null);
        return undefined;
      }
      return new Promise((release) => resolve(release));
    }).catch(reject);
  });
}

// Resolves once the Web Lock `name` is free (its holder let it go or is gone).
export function whenFree(name) {
  return navigator.locks.request(name, async () => {});
}

// This page as the host of `key`, or null when another page is.
export async function tryHost(key) {
  const serving = await holdLock(`pyvfs-serve:${key}`, { ifAvailable: true });
  if (!serving) return null;
  const id = crypto.randomUUID();
  const alive = await holdLock(`pyvfs-host:${key}:${id}`);
  return new Hosting(key, id, [alive, serving]);
}

// The host's side: `onGuest(port, guest)` gets each guest's port.
class Hosting {
  #releases;
  #port;

  constructor(key, id, releases) {
    this.key = key;
    this.id = id;
    this.onGuest = null;
    this.#releases = releases;
    this.#port = brokerPort();
    this.#port.addEventListener("message", this.#joined);
    this.#port.postMessage({ type: SHARE.serve, key, host: id });
  }

  #joined = ({ data, ports }) => {
    if (data?.type !== SHARE.joined || data.key !== this.key || !ports[0]) return;
    if (this.onGuest) this.onGuest(ports[0], data.guest);
    else ports[0].close();
  };

  close() {
    this.#port.removeEventListener("message", this.#joined);
    this.#port.postMessage({ type: SHARE.leave, key: this.key, host: this.id });
    for (const release of this.#releases) release();
  }
}

// A guest's connection to the host of `key` (never to the host `avoid`): {port, guest,
// close()}. The guest holds its own lock while connected, so the host learns when it goes.
export async function joinHost(key, avoid = null) {
  const guest = crypto.randomUUID();
  const alive = await holdLock(`pyvfs-guest:${key}:${guest}`);
  const { port1, port2 } = new MessageChannel();
  brokerPort().postMessage({ type: SHARE.join, key, guest, avoid }, [port2]);
  return {
    port: port1,
    guest,
    close() {
      port1.close();
      alive();
    },
  };
}
