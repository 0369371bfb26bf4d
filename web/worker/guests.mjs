// The channels of the pages this worker serves: its own page, and the guest tabs that share
// this runtime (web/page/share.mjs; docs/architecture.md, "One runtime for every tab").
//
// Read-your-writes across them: each page keeps a stat cache (web/page/stat_cache.mjs) that
// the worker's "invalidate" {view} drops. A page that learns of a write from another page
// (its message, a BroadcastChannel, a server) and then reads must not be answered from a cache
// that predates the write. So an invalidation goes to every channel at once, each page answers
// "seen" {view}, and nothing else leaves on a channel (an answer, a watch event, a request)
// while another channel has not taken the latest view: the writer's answer waits for every
// other page to have dropped what it cached. A page that does not answer within GIVE_UP_MS is
// counted as having seen it (a console warning says so), so a frozen tab cannot stall the rest.
// With one page (no guests) nothing ever waits: its own answers follow the invalidation on the
// same channel.

import { WIRE } from "../shared/protocol.mjs";
import { failure } from "../shared/errors.mjs";

const GIVE_UP_MS = 5_000;

export class Channels {
  #channels = new Set();
  #view = 0;

  // A page's channel: `send(message, transfer)` posts on it. Returns {post, seen, close}: post
  // sends once every other channel has seen the latest view, in order; seen(view) takes the
  // page's "seen"; close() forgets the channel (its page is gone).
  open(send) {
    const channel = { send, seen: this.#view, held: [], timer: null };
    this.#channels.add(channel);
    return {
      post: (message, transfer = []) => this.#post(channel, message, transfer),
      seen: (view) => this.#seen(channel, view),
      close: () => {
        this.#channels.delete(channel);
        clearTimeout(channel.timer);
        this.#release();
      },
    };
  }

  get count() { return this.#channels.size; }

  // The index changed: every page drops its stat cache (py_vfs/web/page_cache.py, Views).
  invalidate(view) {
    this.#view = view;
    for (const channel of this.#channels) {
      channel.send({ type: WIRE.invalidate, view });
      if (this.#channels.size > 1 && channel.seen < view) {
        clearTimeout(channel.timer);
        channel.timer = setTimeout(() => this.#late(channel, view), GIVE_UP_MS);
      }
    }
  }

  #late(channel, view) {
    if (channel.seen >= view) return;
    console.warn(`py_vfs: a tab did not confirm the stat cache invalidation ${view} within ${GIVE_UP_MS} ms; going on without it`);
    this.#seen(channel, view);
  }

  #seen(channel, view) {
    if (!(view > channel.seen)) return;
    channel.seen = view;
    if (view >= this.#view) clearTimeout(channel.timer);
    this.#release();
  }

  #clear(channel) {
    for (const other of this.#channels) {
      if (other !== channel && other.seen < this.#view) return false;
    }
    return true;
  }

  #post(channel, message, transfer) {
    if (!channel.held.length && this.#clear(channel)) {
      channel.send(message, transfer);
      return;
    }
    channel.held.push([message, transfer]);
  }

  // A held message is posted later, where its poster cannot catch a value that does not clone:
  // the calls it answers fail (EIO) instead of waiting for ever.
  static #deliver(channel, message, transfer) {
    try {
      channel.send(message, transfer);
    } catch (error) {
      const failed = failure("EIO", `EIO: ${error?.message ?? error}`);
      if (message.type === WIRE.result) channel.send({ type: WIRE.result, id: message.id, error: failed });
      else if (message.type === WIRE.results) channel.send({ type: WIRE.results, results: message.results.map(([id]) => [id, { error: failed }]) });
      else console.error("py_vfs: a message to a tab could not be posted", error);
    }
  }

  #release() {
    for (const channel of this.#channels) {
      if (!channel.held.length || !this.#clear(channel)) continue;
      const held = channel.held;
      channel.held = [];
      for (const [message, transfer] of held) Channels.#deliver(channel, message, transfer);
    }
  }
}

// Resolves once the guest `guest` of `key` is gone (its page let its lock go): web/page/share.mjs.
export function guestGone(key, guest) {
  return navigator.locks.request(`pyvfs-guest:${key}:${guest}`, async () => {});
}
