// The messages of a running script (a .jsh script's worker, a scoop realm's Python run), queued
// until the shell's Python asks for the next one (py_vfs/shell/realm.py drives a run through
// next(), ack(), give(), terminate()). Nothing is queued after its "exit".

import { RUN } from "../shared/protocol.mjs";

export class RunEvents {
  #events = [];
  #waiting = null;
  ended = false;

  push(event) {
    if (this.ended) return;
    if (event.type === RUN.exit) this.ended = true;
    const waiting = this.#waiting;
    this.#waiting = null;
    if (waiting) waiting(event);
    else this.#events.push(event);
  }

  next() {
    if (this.#events.length) return Promise.resolve(this.#events.shift());
    return new Promise((resolve) => { this.#waiting = resolve; });
  }

  // Ends the run with `message` on its standard error and the status `code`.
  fail(message, code) {
    this.push({ type: RUN.err, id: 0, data: new TextEncoder().encode(`${message}\n`) });
    this.push({ type: RUN.exit, code });
  }
}
