// The page as a peer of its disk while it reads before Python (web/page/early_reader.mjs), so
// that it may answer from the records earlier answers read, with no IndexedDB transaction.
//
// A peer (web/shared/peers.mjs) hears of every commit another context of the disk makes, and
// that commit resolves only once the peer has taken it in. So once this page has joined, a
// commit that resolves anywhere has first had the page forget what it knew (`forget`): a read
// that starts after a write resolved never answers from records older than it. Joining is
// holding the peer's Web Lock, then taking the disk's lock once: a writer that learned the
// peers before this one existed lets go of its lease first, and its next turn finds this one.
// Until it has joined, every early answer reads the revision in its own transaction.

import { Peers } from "../shared/peers.mjs";
import { passThrough } from "../shared/lock_lease.mjs";

export class EarlyPeer {
  #peers = null;
  #channel = null;

  // `forget()`: another context committed; called before this peer acknowledges it.
  constructor(name, forget) {
    this.name = name;
    this.forget = forget;
  }

  // Resolves to true once joined, false where there are no Web Locks or BroadcastChannel (then
  // commits elsewhere are not announced to this page, and it must not keep anything).
  async join() {
    const locks = globalThis.navigator?.locks;
    if (!locks || typeof BroadcastChannel !== "function") return false;
    this.#channel = new BroadcastChannel(`pyvfs:${this.name}`);
    this.#peers = new Peers(this.name, locks, this.#channel, async () => this.forget());
    this.#channel.onmessage = ({ data }) => this.#peers?.receive(data);
    await this.#peers.join();
    await passThrough(`pyvfs:${this.name}`, locks);
    return this.#peers !== null; // not closed meanwhile
  }

  // Leaves: the disk's commits no longer wait for this page.
  close() {
    this.#peers?.close();
    this.#peers = null;
    this.#channel?.close();
    this.#channel = null;
  }
}
