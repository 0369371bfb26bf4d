// Node's fs/promises watch(path, {signal, recursive}) without a listener: an async iterator of
// {eventType: "rename" | "change", filename}, made from the JS API's listener form. Events that
// come before the next call to next() wait in a queue; aborting `signal` ends the iteration
// with Node's AbortError, and return() (a `break` out of `for await`) unsubscribes.

import { abortError } from "./validate.mjs";

// `subscribe(listener)` is vfs.watch's listener form for the watched path (it returns the
// unsubscribe function); `root` is that path, which `filename` is relative to.
export function watchEvents(subscribe, root, signal) {
  const queue = [];
  let wake = null;
  let failure = null;
  let done = false;
  const top = root.replace(/\/+$/, "") || "/";
  const name = (path) => (path === top ? path.split("/").pop() : path.slice(top === "/" ? 1 : top.length + 1));
  const push = (event) => {
    const eventType = event.type === "modify" ? "change" : "rename";
    if (event.oldPath) queue.push({ eventType, filename: name(event.oldPath) });
    queue.push({ eventType, filename: name(event.path) });
    wake?.();
  };
  const unsubscribe = subscribe(push);
  const finish = () => {
    if (done) return;
    done = true;
    unsubscribe();
    wake?.();
  };
  if (signal) {
    const stop = () => { failure = abortError(signal); finish(); };
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  }
  return {
    async next() {
      while (!queue.length && !done) await new Promise((resolve) => { wake = resolve; });
      wake = null;
      if (queue.length) return { value: queue.shift(), done: false };
      if (failure) { const error = failure; failure = null; throw error; }
      return { value: undefined, done: true };
    },
    async return() {
      finish();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() { return this; },
  };
}
