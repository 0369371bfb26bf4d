// The Python worker's side of a running .jsh script (docs/scripts.md): the script runs in a
// dedicated Web Worker of its own (web/realm/jsh_worker.mjs), started here, from the Python worker,
// so its output reaches the shell's pipeline without a round trip through the page, and a
// runaway script (`while (true) {}`) is ended by `terminate()` without touching the page or
// Python. py_vfs/web/scripts.py drives a ScriptRun: `next()` is the script's next message
// ({type: "out"|"err", id, data} | {type: "read"} | {type: "exit", code}); `ack(id)` says a
// write was taken (the script's `await process.stdout.write()` resolves then); `give(data)`
// answers a read (null: end of input).

import { RunEvents } from "./run_events.mjs";
import { RUN } from "../shared/protocol.mjs";

export class ScriptRun {
  #worker;
  #view;
  #events = new RunEvents();

  // `view`: {port, close}, the script's `fs` port bound to its view (web/worker/worker.mjs, bindView).
  constructor(view, init) {
    this.#view = view;
    this.#worker = new Worker(new URL("../realm/jsh_worker.mjs", import.meta.url), { type: "module", name: `jsh:${init.path}` });
    this.#worker.onmessage = ({ data }) => this.#events.push(data);
    this.#worker.onerror = (event) => {
      event.preventDefault?.();
      this.#events.fail(`jsh: ${event.message || "the script's worker failed"}`, 1);
    };
    this.#worker.postMessage({ type: RUN.start, ...init, fs: view.port }, [view.port]);
  }

  next() {
    return this.#events.next();
  }

  ack(id) {
    this.#worker.postMessage({ type: RUN.ack, id });
  }

  give(data) {
    this.#worker.postMessage({ type: RUN.stdin, data: data ?? null });
  }

  // Ends the script at once (also mid-loop) and closes its fs port: the view is forgotten.
  terminate() {
    this.#events.ended = true;
    this.#worker.terminate();
    this.#view.close();
  }
}
