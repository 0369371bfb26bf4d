// The page's side of scoops' realms (docs/sandbox.md, "A realm for code"): only a page can embed
// a frame, so the VFS worker asks this page for one (web/worker/realm_pool.mjs). Each is realm/realm.html
// in an iframe sandboxed with "allow-scripts" alone: an opaque origin, which has no storage,
// locks or same-origin requests of the app's, and cannot reach this page (it gets no reference
// to it, and this page takes nothing from it but what comes on the control port).
//
// From the worker: {type: "realmOpen", id}, answered by {type: "realmOpened", id} with the
// frame's control port (or {type: "realmOpened", id, error}); {type: "realmClose", id}.

import { RUN, WIRE } from "../shared/protocol.mjs";

const LOAD_TIMEOUT_MS = 30_000;
const base = new URL("./realm/", import.meta.url).href;

export class RealmFrames {
  #frames = new Map();

  constructor(worker) {
    this.worker = worker;
  }

  // True when `data` was a realm message (handled here).
  receive(data) {
    if (data.type === WIRE.realmOpen) this.#open(data.id);
    else if (data.type === WIRE.realmClose) this.#close(data.id);
    else return false;
    return true;
  }

  #open(id) {
    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts");
    frame.setAttribute("aria-hidden", "true");
    frame.tabIndex = -1;
    frame.title = "py_vfs realm";
    frame.style.display = "none";
    const timer = setTimeout(() => {
      this.#close(id);
      this.worker.postMessage({ type: WIRE.realmOpened, id, error: `the realm frame (${base}realm.html) did not load within ${LOAD_TIMEOUT_MS / 1000} s` });
    }, LOAD_TIMEOUT_MS);
    frame.addEventListener("load", () => {
      clearTimeout(timer);
      const { port1, port2 } = new MessageChannel();
      // "*": an opaque origin matches no other; the message holds only the folder's URL.
      frame.contentWindow.postMessage({ type: RUN.realm, base }, "*", [port2]);
      this.worker.postMessage({ type: WIRE.realmOpened, id }, [port1]);
    }, { once: true });
    frame.src = `${base}realm.html`;
    this.#frames.set(id, frame);
    (document.body ?? document.documentElement).append(frame);
  }

  #close(id) {
    this.#frames.get(id)?.remove();
    this.#frames.delete(id);
  }

  closeAll() {
    for (const id of [...this.#frames.keys()]) this.#close(id);
  }
}
