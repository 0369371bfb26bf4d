// The disk's Web Lock held as a lease (issue 17): a tab that writes alone takes the lock once
// and keeps it between its commits, instead of paying a lock request per commit (about 0.5 ms
// of a 5 ms sequential writeFile, measured in Chromium 156). It lets go as soon as anyone else
// wants it, so the lock's FIFO fairness between tabs stays (docs/architecture.md, "Several
// tabs"):
// - a context about to request the lock says so first on the BroadcastChannel
//   `pyvfs-lease:<name>`; the holder releases at once when idle, else at the end of its turn;
// - when the holder goes idle it also asks navigator.locks.query() whether a request is
//   pending (one that was made before the holder took the lock, or by code that does not
//   announce itself), and releases if so; at most once per QUERY_EVERY_MS, since a query is a
//   round trip to the browser that cost a sequential writeFile about 0.15 ms when it was asked
//   at every commit (docs/benchmarks.md, W1), so such a request waits that much more at most;
// - an idle lease is released after LEASE_IDLE_MS whatever happens (one timer, re-armed only
//   when it fires early, not cleared and set again at every commit).
// Within this context, callers queue here and are handed the lock in turn while nobody else
// wants it. Correctness never rested on the lock: commits are conditional on the revision
// (web/worker/idb_store.mjs, commitLogged). Each time the lock is taken, `onTaken` runs (the
// disk's peers are listed then: web/shared/peers.mjs).

import { LEASE } from "./protocol.mjs";

const LEASE_IDLE_MS = 250;
const QUERY_EVERY_MS = 50;

export class LockLease {
  #name;
  #locks;
  #channel;
  #release = null; // releases the Web Lock; set while this context holds it
  #requesting = false; // a Web Lock request of ours is pending
  #busy = false; // a caller here holds the lock now
  #waiters = []; // callers here waiting for it
  #wanted = false; // another context asked for the lock while we held it
  #timer = null;
  #idleSince = 0; // when the last turn here ended
  #queriedAt = -Infinity; // when the lock manager was last asked for pending requests
  #querying = false;

  #onTaken;

  constructor(name, locks, onTaken = () => {}) {
    this.#name = name;
    this.#locks = locks;
    this.#onTaken = onTaken;
    this.#channel = leaseChannel(name);
    if (this.#channel) {
      this.#channel.onmessage = () => this.#askedFor();
      this.#channel.unref?.(); // Node: an open channel must not keep the process alive
    }
  }

  // Resolves with the function that ends this caller's turn (call it once).
  acquire() {
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      this.#next();
    });
  }

  // The function that ends this caller's turn when the turn can start at once (the lease is
  // held, idle and not asked for), else null: then acquire(). Saves the caller a wait on a
  // promise per commit, which from Python is a turn of the event loop (0.1-0.2 ms in wasm).
  tryAcquire() {
    if (this.#busy || this.#waiters.length || !this.#release || this.#wanted) return null;
    return this.#turn();
  }

  close() {
    this.#channel?.close();
    this.#letGo();
  }

  // Hands the lock to the next caller here if we hold it and nobody else wants it; requests it
  // when we do not hold it.
  #next() {
    if (this.#busy || !this.#waiters.length) return;
    if (this.#release) {
      if (this.#wanted) return; // released at the end of the current turn (#done)
      this.#waiters.shift()(this.#turn());
      return;
    }
    if (this.#requesting) return;
    this.#requesting = true;
    this.#channel?.postMessage({ type: LEASE.want });
    this.#locks.request(this.#name, () => new Promise((release) => {
      this.#onTaken();
      this.#requesting = false;
      this.#wanted = false;
      this.#release = release;
      this.#next();
    }));
  }

  // Starts a caller's turn on the held lock; returns the function that ends it.
  #turn() {
    this.#busy = true;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#done();
    };
  }

  #done() {
    this.#busy = false;
    if (this.#wanted) {
      this.#letGo();
      if (this.#waiters.length) this.#next();
      return;
    }
    if (this.#waiters.length) {
      this.#next();
      return;
    }
    this.#idle();
  }

  // Holding the lock with nobody here using it: keep it, unless someone is queued for it.
  #idle() {
    const now = performance.now();
    this.#idleSince = now;
    this.#timer ??= this.#arm(LEASE_IDLE_MS);
    if (this.#querying || now - this.#queriedAt < QUERY_EVERY_MS || !this.#locks.query) return;
    this.#querying = true;
    this.#queriedAt = now;
    this.#locks.query().then(({ pending = [] }) => {
      if (pending.some((request) => request.name === this.#name)) this.#askedFor();
    }, () => {}).finally(() => { this.#querying = false; });
  }

  // The idle timer: lets go once the lease has been idle LEASE_IDLE_MS, else waits the rest.
  #arm(ms) {
    const timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#release || this.#busy) return;
      const idle = performance.now() - this.#idleSince;
      if (idle >= LEASE_IDLE_MS) this.#letGo();
      else this.#timer = this.#arm(LEASE_IDLE_MS - idle);
    }, ms);
    timer.unref?.();
    return timer;
  }

  #askedFor() {
    if (!this.#release) return;
    if (this.#busy) this.#wanted = true;
    else this.#letGo();
  }

  #letGo() {
    clearTimeout(this.#timer);
    this.#timer = null;
    const release = this.#release;
    this.#release = null;
    this.#wanted = false;
    release?.();
  }
}

// The channel on which contexts say they want the lock `name`.
function leaseChannel(name) {
  return typeof BroadcastChannel === "function" ? new BroadcastChannel(`pyvfs-lease:${name}`) : null;
}

// Takes the lock `name` once and lets go at once, asking its holder to let go first (a new
// peer's join, web/shared/peers.mjs): resolves once every context that held it before has.
export async function passThrough(name, locks) {
  const channel = leaseChannel(name);
  channel?.postMessage({ type: LEASE.want });
  channel?.close();
  await locks.request(name, () => {});
}
