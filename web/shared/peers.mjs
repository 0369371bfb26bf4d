// Read-your-writes across contexts (docs/architecture.md, "Several tabs"): a commit of this
// worker resolves only once every other live VFS worker of the same disk has applied it and
// its page has dropped what it cached. So a read that starts after a write resolved, in any
// tab, Web Worker or view of the disk, sees it, however the reader learned of the write.
//
// - Each worker is a peer: it holds the Web Lock `pyvfs-peer:<name>:<id>` for its whole life,
//   so the lock manager knows who is there (a closed or crashed context lets go by itself).
// - A writer learns the peers when it takes the disk's lock (web/shared/lock_lease.mjs): one
//   navigator.locks.query() per lease, not per commit.
// - A new peer takes the disk's lock once before it loads its index (join), so a writer that
//   took the lock before the peer existed lets go first: its commits are in the peer's load,
//   and its next turn asks the lock manager again and finds the peer.
// - After each logged commit the writer posts PEERS.commit {rev, from, seq} on the disk's
//   BroadcastChannel; each other peer catches up (its index includes rev, its page's stat cache
//   is dropped) and answers PEERS.applied {seq, from, to}. The writer's commit resolves when
//   every peer it knows has answered, or has gone (asked again every RECHECK_MS), or after
//   GIVE_UP_MS (a peer that is there but never answers; a console warning says so).
// - When the lock manager listed no other peer, a commit is not posted at all and resolves at
//   once (a writer alone, as in benchmark W1): whoever joins later takes the disk's lock
//   before it reads anything it keeps, so it loads this commit, and the writer lists it when it
//   takes the lock again.
// Without Web Locks (Node) there are no peers to wait for: commits are announced as before.

import { PEERS } from "./protocol.mjs";

const RECHECK_MS = 250;
const GIVE_UP_MS = 5_000;

export class Peers {
  #prefix;
  #locks;
  #channel;
  #known = Promise.resolve([]); // the other peers, as the lock manager last listed them
  #listed = []; // the same list once it is known; null while the lock manager is asked
  #seq = 0;
  #waiting = new Map(); // seq -> {acked: Set of peer ids, changed()}
  #leave = null; // releases this peer's own lock
  #closed = false;

  // `onCommit(rev)`: another peer committed `rev`; resolves once this peer has applied it.
  constructor(name, locks, channel, onCommit = async () => {}) {
    this.id = globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random()}`;
    this.#prefix = `pyvfs-peer:${name}:`;
    this.#locks = locks;
    this.#channel = channel;
    this.onCommit = onCommit;
  }

  // Takes this peer's lock (held until close(); a close() before it is granted lets it go at
  // once); resolves once it is held or let go.
  join() {
    if (!this.#locks) return Promise.resolve();
    return new Promise((held) => {
      this.#locks.request(this.#prefix + this.id, () => new Promise((release) => {
        if (this.#closed) release();
        else this.#leave = release;
        held();
      }));
    });
  }

  // Asks the lock manager who is there now (called as the disk's lock is taken).
  refresh() {
    const known = this.#others().catch(() => []);
    this.#known = known;
    this.#listed = null;
    known.then((peers) => {
      if (this.#known === known) this.#listed = peers;
    });
  }

  async #others() {
    if (!this.#locks?.query) return [];
    const { held = [] } = await this.#locks.query();
    return held.map((lock) => lock.name).filter((name) => name.startsWith(this.#prefix))
      .map((name) => name.slice(this.#prefix.length)).filter((id) => id !== this.id);
  }

  // Announces the commit `rev`; resolves once every peer known has applied it. Null when the
  // lock manager listed none: nothing is posted, nothing to wait for.
  announce(rev) {
    if (this.#locks && this.#listed?.length === 0) return null;
    const seq = ++this.#seq;
    const entry = { acked: new Set(), changed: () => {} };
    this.#waiting.set(seq, entry);
    this.#channel?.postMessage({ type: PEERS.commit, rev, from: this.id, seq });
    return this.#known.then((peers) => (peers.length ? this.#confirmed(entry, peers) : undefined))
      .finally(() => this.#waiting.delete(seq));
  }

  #confirmed(entry, peers) {
    const started = performance.now();
    let waitingFor = peers;
    return new Promise((resolve) => {
      let timer = null;
      const finish = () => {
        clearTimeout(timer);
        resolve();
      };
      entry.changed = () => {
        waitingFor = waitingFor.filter((id) => !entry.acked.has(id));
        if (!waitingFor.length) finish();
      };
      const recheck = async () => {
        const present = new Set(await this.#others().catch(() => waitingFor));
        waitingFor = waitingFor.filter((id) => present.has(id));
        entry.changed();
        if (!waitingFor.length) return;
        if (performance.now() - started > GIVE_UP_MS) {
          console.warn(`py_vfs: ${waitingFor.length} context(s) of this disk did not apply a commit within ${GIVE_UP_MS} ms; their reads may lag`);
          finish();
          return;
        }
        timer = setTimeout(recheck, RECHECK_MS);
      };
      entry.changed();
      if (waitingFor.length) timer = setTimeout(recheck, RECHECK_MS);
    });
  }

  // A message of the disk's BroadcastChannel.
  receive(data) {
    if (data?.type === PEERS.applied && data.to === this.id) {
      const entry = this.#waiting.get(data.seq);
      if (entry) {
        entry.acked.add(data.from);
        entry.changed();
      }
    } else if (data?.type === PEERS.commit && data.from !== this.id) {
      const ack = () => this.#channel?.postMessage({ type: PEERS.applied, seq: data.seq, from: this.id, to: data.from });
      Promise.resolve().then(() => this.onCommit(data.rev)).then(ack, ack);
    }
  }

  close() {
    this.#closed = true;
    this.#leave?.();
    this.#leave = null;
  }
}
