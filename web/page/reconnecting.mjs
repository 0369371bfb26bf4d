// A guest page between two hosts of a shared runtime (web/page/share.mjs): the host it used
// went, and the next one (another page, or this one) is not reached yet. It stands in the
// client's `early` place (web/page/client.mjs), so every call made meanwhile waits here, in
// order, and goes once the next host is reached (resume).
//
// The calls that were in flight when the host went cannot all be sent again as they were: a
// read can (it changes nothing), and so can a watch (its listener keeps its id; events between
// the two hosts are not seen). A write the host may have committed before it went, or not, is
// sent again only when it is retryable (py_vfs/web/protocol.py: its whole effect is one commit
// and its answer is void: writeFile, appendFile, mkdir, rename, unlink...) and has no signal:
// with its same request id, marked as a retry with the time it was first sent, so the next host
// answers it as applied when the journal has its request id, else runs it
// (py_vfs/web/retries.py). Any other call that may change the disk fails with EIO: sending it
// again could apply it twice (a step, a shell line, a stream's chunk). Nothing acknowledged is
// lost either way: a call answered before the host went had committed.

import { OPS, READ_ONLY } from "../shared/protocol.mjs";
import { failure } from "../shared/errors.mjs";

export class Reconnecting {
  #client;
  #why;
  #waiting = [];

  constructor(client, why) {
    this.#client = client;
    this.#why = why;
  }

  // Every call in flight: a read or a watch is kept to be sent again, a retryable write too
  // (as a retry), anything else fails.
  takeInFlight() {
    const client = this.#client;
    for (const [id, pending] of [...client.calls]) {
      const plain = !pending.signal && !pending.streams;
      if (pending.op === "watch" || (READ_ONLY.has(pending.op) && plain)) {
        this.#waiting.push(() => pending.send());
      } else if (OPS[pending.op]?.retryable && plain) {
        this.#waiting.push(() => pending.send(pending.sentAt ?? Date.now()));
      } else {
        const message = `EIO: ${this.#why} while ${pending.op} was in flight: it may or may not have been applied`;
        client.settle({ id, error: failure("EIO", message, { syscall: pending.op }) });
      }
    }
    // Watches set up before: asked of the next host too (those in flight are sent again above).
    const inFlight = new Set([...client.calls.values()].filter((pending) => pending.op === "watch").map((pending) => pending.watchId));
    for (const [id, args] of client.watching) {
      if (!inFlight.has(id)) this.#waiting.push(() => client.call("watch", args).catch(() => {}));
    }
  }

  // The client's early-reader interface: nothing is answered here, everything waits.
  try() {
    return false;
  }

  post(send) {
    this.#waiting.push(send);
  }

  // The next host is reached: what waited goes, in order.
  resume() {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const send of waiting) send();
  }
}
