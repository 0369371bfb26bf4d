// The preview service worker: answers GET and HEAD /preview/<path> from the VFS.
// It keeps no state (it is stopped when idle). For every request it offers the job to the open
// app pages at once; the first that owns the VFS acks, gets "go", and its VFS worker answers on
// the same MessagePort: a "start" message (status, headers, the first piece of the body) and,
// for a large body, one "chunk" per "pull" until "end". docs/preview.md has the whole protocol;
// the decisions (status, headers) are made in Python (py_vfs/preview.py), not here.

// build/build.py writes its build id here, so every build is a new service worker version.
const BUILD = "dev";
const PROTOCOL = 2;
const VFS_NAME = "default";
const ACK_TIMEOUT_MS = 1500; // no app page acked within this: 503
const START_TIMEOUT_MS = 60000; // acked but no "start" within this: 504 (a tab may be booting)
const IDLE_TIMEOUT_MS = 30000; // a streamed body whose next piece takes longer fails
const FORWARDED_HEADERS = { range: "range", "if-none-match": "if_none_match", "if-range": "if_range" };

self.addEventListener("install", (event) => event.waitUntil(self.skipWaiting()));
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const scope = new URL(self.registration.scope);
  const url = new URL(event.request.url);
  if (url.origin !== scope.origin) return;
  if (url.pathname.startsWith(scope.pathname)) {
    const finished = deferred();
    event.waitUntil(finished.promise); // stay alive while a body streams
    event.respondWith(answer(event.request, url.pathname.slice(scope.pathname.length), finished.resolve));
  } else if (event.request.mode !== "navigate") {
    // Only a preview page is controlled by this worker, so this is one of its subresources with
    // a root-relative URL: "/" means the preview root (docs/preview.md, "Root-relative URLs").
    event.respondWith(Response.redirect(new URL(url.pathname.slice(1) + url.search, scope).href, 308));
  }
});

function deferred() {
  let resolve;
  const promise = new Promise((r) => { resolve = r; });
  return { promise, resolve };
}

function headersOf(extra) {
  return { "Cache-Control": "no-cache", "X-Preview-Build": BUILD, ...extra };
}

function text(status, message) {
  return new Response(message, { status, headers: headersOf({ "Content-Type": "text/plain; charset=utf-8" }) });
}

function page(status, title, text, extra = "") {
  const body = `<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><p>${text}</p>${extra}`;
  return new Response(body, { status, headers: headersOf({ "Content-Type": "text/html; charset=utf-8" }) });
}

// Percent-decodes each segment. A segment that decodes to something holding "/" or NUL (say
// "..%2f..%2fx") can only be an attempt to step across segments, so it is refused; "." and ".."
// segments were already resolved by the browser's URL parser, and the VFS never climbs above /.
function vfsPath(relative) {
  const segments = relative.split("/").map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw new Error(`malformed percent-encoding in ${relative}`);
    }
  });
  if (segments.some((segment) => segment.includes("/") || segment.includes("\0"))) {
    throw new Error(`an encoded "/" or NUL in a path segment: ${relative}`);
  }
  return "/" + segments.join("/");
}

async function answer(request, relative, finished) {
  try {
    if (request.method !== "GET" && request.method !== "HEAD") {
      finished();
      return new Response("Method Not Allowed\n", { status: 405, headers: headersOf({ Allow: "GET, HEAD" }) });
    }
    let path;
    try {
      path = vfsPath(relative);
    } catch (error) {
      finished();
      return text(400, `Bad Request: ${error.message}\n`);
    }
    const wanted = { path, method: request.method };
    for (const [header, field] of Object.entries(FORWARDED_HEADERS)) {
      if (request.headers.has(header)) wanted[field] = request.headers.get(header);
    }
    const message = { type: "pyvfs:preview", protocol: PROTOCOL, vfs: VFS_NAME, request: wanted };
    const port = await offer(message);
    if (port) return await receive(port, request.method, finished);
    finished();
    const app = new URL("../", self.registration.scope).href;
    return page(503, "Preview unavailable", "No py_vfs app tab is open to serve this file.",
      `<p><a href="${app}">Open the app</a>, then reload this page.</p>`);
  } catch (error) {
    finished();
    return text(500, `Internal Server Error: ${error?.message ?? error}\n`);
  }
}

// Offers the request to every app page at once (pages inside the preview scope are previews,
// not owners); resolves with the port of the first that acks, or null after ACK_TIMEOUT_MS.
async function offer(message) {
  const scope = self.registration.scope;
  const all = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const owners = all.filter((client) => !client.url.startsWith(scope));
  if (!owners.length) return null;
  return new Promise((resolve) => {
    let chosen = null;
    const timer = setTimeout(() => resolve(null), ACK_TIMEOUT_MS);
    for (const client of owners) {
      const channel = new MessageChannel();
      channel.port1.onmessage = ({ data }) => {
        if (data?.type !== "ack" || chosen) return channel.port1.close();
        chosen = channel.port1;
        clearTimeout(timer);
        resolve(chosen);
      };
      client.postMessage(message, [channel.port2]);
    }
  });
}

// Tells the chosen owner to go, and builds the Response from what its worker sends back.
function receive(port, method, finished) {
  return new Promise((resolve) => {
    let timer = setTimeout(() => {
      port.close();
      finished();
      resolve(text(504, "Gateway Timeout: the app did not answer\n"));
    }, START_TIMEOUT_MS);
    port.onmessage = ({ data }) => {
      if (data?.type !== "start") return;
      clearTimeout(timer);
      const noBody = method === "HEAD" || data.status === 304 || data.status === 301;
      if (noBody || !data.more) {
        port.close();
        finished();
        resolve(respond(data, noBody ? null : data.body));
      } else {
        resolve(respond(data, streamed(port, data.body, finished)));
      }
    };
    port.postMessage({ type: "go" });
  });
}

function respond({ status, headers }, body) {
  return new Response(body, { status, headers: headersOf(headers) });
}

// The rest of a large body: one "pull" to the owner per piece the reader wants, so at most a
// couple of pieces wait here whatever the file's size (backpressure reaches the VFS worker).
function streamed(port, first, finished) {
  let controller;
  let arrived = null;
  let timer;
  const stop = () => {
    clearTimeout(timer);
    port.close();
    finished();
  };
  port.onmessage = ({ data }) => {
    clearTimeout(timer);
    if (data.type === "chunk") controller.enqueue(data.data);
    else if (data.type === "end") { controller.close(); stop(); }
    else if (data.type === "error") { controller.error(new Error(data.message)); stop(); }
    arrived?.();
    arrived = null;
  };
  return new ReadableStream({
    start(c) {
      controller = c;
      if (first.byteLength) c.enqueue(first);
    },
    pull() {
      port.postMessage({ type: "pull" });
      timer = setTimeout(() => {
        controller.error(new Error("the app stopped sending the file"));
        port.postMessage({ type: "cancel" });
        stop();
        arrived?.();
      }, IDLE_TIMEOUT_MS);
      return new Promise((resolve) => { arrived = resolve; });
    },
    cancel() {
      port.postMessage({ type: "cancel" });
      stop();
    },
  }, { highWaterMark: 2 });
}
