// The realm's frame (docs/sandbox.md, "A realm for code"): a page of the app's files that the app
// embeds sandboxed ("allow-scripts" without "allow-same-origin"), so it and every worker it
// starts run in an opaque origin of their own. It only starts and ends workers; everything
// else goes over MessagePorts between those workers and the VFS worker.
//
// From the embedding page, once: {type: "realm", base} with the control port, `base` being this
// folder's URL. On the control port, from the VFS worker: {type: "spawn", id, kind} with the
// worker's port (kind "python": web/realm/python.js; "jsh": web/realm/jsh.js), {type: "kill",
// id}. To it: {type: "ready"} once, {type: "died", id, message} when a worker failed.
// A worker's module (realm_python.mjs, jsh_worker.mjs: the build puts them and what they import
// in this folder) exports serve(scope, queued), which takes over its messages.
"use strict";

(() => {
  const MODULES = { python: "realm_python.mjs", jsh: "jsh_worker.mjs" };
  const workers = new Map();
  const sources = new Map(); // kind -> blob URL of the worker's bootstrap (one per kind)
  let control = null;

  // A worker's script must be of the document's origin, and this one is opaque: a blob made
  // here is, and it imports the realm's module from the app's folder (served with CORS). Its
  // messages are held until the module takes them; a module that fails to load is the
  // worker's error.
  function sourceOf(base, kind) {
    if (!sources.has(kind)) {
      const url = JSON.stringify(new URL(MODULES[kind], base).href);
      const script = `const queued = []; self.onmessage = (event) => queued.push(event);
import(${url}).then((module) => module.serve(self, queued), (error) => setTimeout(() => { throw error; }));`;
      sources.set(kind, URL.createObjectURL(new Blob([script], { type: "text/javascript" })));
    }
    return sources.get(kind);
  }

  function spawn(base, id, kind, port) {
    if (!Object.hasOwn(MODULES, kind) || !port || workers.has(id)) return;
    const worker = new Worker(sourceOf(base, kind), { name: `pyvfs-realm:${kind}` });
    worker.onerror = (event) => {
      event.preventDefault();
      control.postMessage({ type: "died", id, message: String(event.message || `the realm's ${kind} worker failed`) });
      kill(id);
    };
    worker.postMessage({ type: "port" }, [port]);
    workers.set(id, worker);
  }

  function kill(id) {
    workers.get(id)?.terminate();
    workers.delete(id);
  }

  addEventListener("message", (event) => {
    const { data, ports } = event;
    if (control || event.source !== parent || data?.type !== "realm" || !ports[0]) return;
    control = ports[0];
    const base = String(data.base);
    control.onmessage = ({ data: message, ports: given }) => {
      if (message?.type === "spawn") spawn(base, message.id, message.kind, given[0]);
      else if (message?.type === "kill") kill(message.id);
    };
    control.postMessage({ type: "ready" });
  });
})();
