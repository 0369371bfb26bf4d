// The preview service worker, on the PREVIEW origin (never the app's): answers GET and HEAD
// /preview/<token>/<path> from the VFS. The token names a preview root (a folder or one file of
// a disk) that an app tab minted; this worker knows nothing of it and holds no VFS data. It keeps
// no state (it is stopped when idle). For every request it offers the job to the relay frames
// (relay.html, each embedded in an app tab) at once; a relay hands the offer and its port to its
// app tab, the first tab that can serve the token acks, gets "go", and its VFS worker answers on
// the same MessagePort: a "start" message (status, headers, the first piece of the body) and,
// for a large body, one "chunk" per "pull" until "end". docs/preview.md has the whole protocol;
// the decisions (status, headers, the root) are made in Python (py_vfs/hosts/preview.py), not here.

// Only a relay an app tab embedded gets requests (docs/preview.md, "Who is a relay"): the
// navigation that made it came through this worker from an app origin's page into a frame
// (request.referrer, request.destination: the browser sets both, no page can), and the client
// it made (event.resultingClientId, unguessable) is remembered as a relay. A window a previewed
// page opens or frames at the relay's URL is refused there, and any other client of this origin
// (a preview page, a window at any URL) is never offered a request.

// build/build.py writes its build id here, so every build is a new service worker version.
const BUILD = "dev";
// build/build.py writes PREVIEW_PROTOCOL of py_vfs/web/protocol.py here (the version of the preview
// messages, shared with relay.mjs and web/page/preview_relay.mjs).
const PROTOCOL = 0;
const SCOPE_PATH = "/preview/";
const RELAY_PATH = "/preview/relay.html"; // inside the scope: its navigation comes through here
const TOKEN = /^[A-Za-z0-9_-]{22,64}$/; // web/page/preview_roots.mjs mints 128 random bits
const ACK_TIMEOUT_MS = 10000; // a relay neither acked nor passed within this: 503
const START_TIMEOUT_MS = 60000; // acked but no "start" within this: 504 (a tab may be booting)
const IDLE_TIMEOUT_MS = 30000; // a streamed body whose next piece takes longer fails
const FORWARDED_HEADERS = { range: "range", "if-none-match": "if_none_match", "if-range": "if_range" };

// Installs only as <preview origin>/preview/, the scope a script at /preview/sw.js gets at most:
// a copy registered with another scope, or on an origin that the preview site's config names as
// an app origin (the preview files deployed on the app's origin by mistake), refuses.
self.addEventListener("install", (event) => event.waitUntil((async () => {
  const expected = new URL(SCOPE_PATH, self.location.origin).href;
  if (self.registration.scope !== expected) {
    throw new Error(`py_vfs preview: refusing scope ${self.registration.scope}, only ${expected}`);
  }
  if ((await appOrigins()).includes(self.location.origin)) {
    throw new Error(`py_vfs preview: ${self.location.origin} is an app origin, not a preview origin`);
  }
  await self.skipWaiting();
})()));
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== self.location.origin) return;
  const scope = self.registration.scope;
  if (url.pathname === RELAY_PATH) {
    event.respondWith(relayPage(event));
  } else if (url.href.startsWith(scope)) {
    const finished = deferred();
    event.waitUntil(finished.promise); // stay alive while a body streams
    event.respondWith(answer(event.request, url, finished.resolve));
  } else if (event.request.mode !== "navigate") {
    // Only preview pages and relay frames are controlled by this worker, so this is a relay's
    // own file or a preview page's subresource with a root-relative URL: "/" means its preview
    // root (docs/preview.md, "Root-relative URLs").
    event.respondWith(rootRelative(event.clientId, event.request, url));
  }
});

// A relay asks whether it is one (relay.mjs): only the client a trusted navigation made is.
self.addEventListener("message", (event) => {
  // A relay asks an installed, waiting build to take over (relay.mjs takeOver).
  if (event.data?.type === "pyvfs:relay-skip-waiting") return void self.skipWaiting();
  if (event.data?.type !== "pyvfs:relay-hello" || !event.source) return;
  const client = event.source;
  event.waitUntil(isRelay(client).then((trusted) => {
    client.postMessage({ type: "pyvfs:relay-trusted", protocol: PROTOCOL, trusted });
  }));
});

// The relay page, for a frame an app origin's page navigates (the referrer is that page's
// origin: web/page/preview_relay.mjs sends it with referrerPolicy "origin"). The client it makes
// is remembered as a relay. Anything else, a window or a frame a previewed page opens at this
// URL, is refused and remembered as nothing.
async function relayPage(event) {
  const { request } = event;
  let from = "";
  try {
    from = request.referrer ? new URL(request.referrer).origin : "";
  } catch {
    from = "";
  }
  const embedded = request.mode === "navigate" && request.destination === "iframe";
  const fromApp = from && from !== self.location.origin && (await appOrigins()).includes(from);
  if (!embedded || !fromApp) {
    return text(403, "Forbidden: the preview relay is a frame of a py_vfs app tab only\n");
  }
  const response = await fetch(request); // the static page, with its frame-ancestors header
  if (response.ok && event.resultingClientId) await trust(event.resultingClientId);
  return response;
}

// The ids of the relay clients, kept in memory and in this origin's IndexedDB (the worker is
// stopped when idle). A previewed page can read and change that database, but not learn its
// own client id, so the most it can do is forget the relays (previews stop until the app tab
// reloads: docs/security.md).
let relayIds = null;

// One request on the list. Whatever a previewed page did to the database (another version, no
// such store, a connection it keeps open) fails here, and the list is then empty.
function relayStore(mode, use) {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open("pyvfs-preview-relays", 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore("relays");
    opening.onerror = () => reject(opening.error);
    opening.onblocked = () => reject(new Error("the relay list is held open elsewhere"));
    opening.onsuccess = () => {
      const db = opening.result;
      try {
        const tx = db.transaction("relays", mode);
        const request = use(tx.objectStore("relays"));
        tx.oncomplete = () => { db.close(); resolve(request.result); };
        tx.onerror = tx.onabort = () => { db.close(); reject(tx.error); };
      } catch (error) {
        db.close();
        reject(error);
      }
    };
  });
}

function trustedIds(reread = false) {
  if (reread) relayIds = null;
  relayIds ??= relayStore("readonly", (store) => store.get("ids")).then(
    (ids) => new Set(Array.isArray(ids) ? ids.filter((id) => typeof id === "string") : []),
    () => new Set());
  return relayIds;
}

async function trust(id) {
  const ids = await trustedIds();
  const live = new Set((await self.clients.matchAll({ type: "window", includeUncontrolled: true })).map((c) => c.id));
  for (const old of ids) if (!live.has(old)) ids.delete(old);
  ids.add(id);
  await relayStore("readwrite", (store) => store.put([...ids], "ids")).catch(() => {});
}

// A relay: a frame (not a top-level or auxiliary window) at the relay's URL, made by a
// navigation this worker let through as an app tab's.
async function isRelay(client) {
  if (client?.type !== "window" || client.frameType !== "nested") return false;
  if (new URL(client.url).pathname !== RELAY_PATH) return false;
  // Another instance of this worker (the previous build, or this one before it was stopped)
  // may have trusted it since the list was read.
  return (await trustedIds()).has(client.id) || (await trustedIds(true)).has(client.id);
}

async function appOrigins() {
  try {
    const config = await (await fetch("/pyvfs-config.json", { cache: "no-cache" })).json();
    return Array.isArray(config.appOrigins) ? config.appOrigins : [];
  } catch {
    return [];
  }
}

// The token of a preview page's URL, or null.
function tokenOf(href) {
  const scope = self.registration.scope;
  if (!href?.startsWith(scope)) return null;
  const token = href.slice(scope.length).split(/[/?#]/, 1)[0];
  return TOKEN.test(token) ? token : null;
}

// "/style.css" asked by the page /preview/<token>/x.html is /preview/<token>/style.css. Every
// leading slash goes, so "//host/x" stays a path on this origin, and the target is checked to
// be inside the token's root before the redirect is sent. The relay's own files (relay.mjs,
// protocol.mjs, pyvfs-config.json) come from the network.
async function rootRelative(clientId, request, url) {
  const client = clientId ? await self.clients.get(clientId) : null;
  if (client && new URL(client.url).pathname === RELAY_PATH) return fetch(request);
  const token = tokenOf(client?.url);
  if (!token) return text(404, "Not Found: not asked by a preview page\n");
  const root = `${self.registration.scope}${token}/`;
  const target = new URL(url.pathname.replace(/^\/+/, "") + url.search, root);
  if (target.origin !== self.location.origin || !target.href.startsWith(root)) {
    return text(404, "Not Found: outside the preview root\n");
  }
  return Response.redirect(target.href, 308);
}

function deferred() {
  let resolve;
  const promise = new Promise((r) => { resolve = r; });
  return { promise, resolve };
}

// nosniff: a previewed file is never run as a script or a style sheet of another type than the
// one its name gives it. frame-ancestors 'self': a preview may be framed by previews only,
// never by an app page, where it would sit beside that page's relay frame, of its own origin,
// and could script it (docs/security.md).
function headersOf(extra) {
  return { "Cache-Control": "no-cache", "X-Preview-Build": BUILD, "X-Content-Type-Options": "nosniff",
           "Content-Security-Policy": "frame-ancestors 'self'", ...extra };
}

function text(status, message) {
  return new Response(message, { status, headers: headersOf({ "Content-Type": "text/plain; charset=utf-8" }) });
}

function page(status, title, text, extra = "") {
  const body = `<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><p>${text}</p>${extra}`;
  return new Response(body, { status, headers: headersOf({ "Content-Type": "text/html; charset=utf-8" }) });
}

function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// Percent-decodes each segment. A segment that decodes to something holding "/" or NUL (say
// "..%2f..%2fx") can only be an attempt to step across segments, so it is refused; "." and ".."
// segments were already resolved by the browser's URL parser, and Python folds any ".." at the
// top of the preview root.
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

async function answer(request, url, finished) {
  try {
    if (request.method !== "GET" && request.method !== "HEAD") {
      finished();
      return new Response("Method Not Allowed\n", { status: 405, headers: headersOf({ Allow: "GET, HEAD" }) });
    }
    const inScope = url.pathname.slice(SCOPE_PATH.length);
    const slash = inScope.indexOf("/");
    const token = slash < 0 ? inScope : inScope.slice(0, slash);
    if (!TOKEN.test(token)) {
      finished();
      return text(404, "Not Found: no such preview\n");
    }
    if (slash < 0) {
      finished(); // the root itself: relative links need the slash
      return Response.redirect(`${self.registration.scope}${token}/${url.search}`, 301);
    }
    let path;
    try {
      path = vfsPath(inScope.slice(slash + 1));
    } catch (error) {
      finished();
      return text(400, `Bad Request: ${error.message}\n`);
    }
    const wanted = { path, method: request.method };
    for (const [header, field] of Object.entries(FORWARDED_HEADERS)) {
      if (request.headers.has(header)) wanted[field] = request.headers.get(header);
    }
    const message = { type: "pyvfs:preview", protocol: PROTOCOL, token, request: wanted };
    const { port, unanswered } = await offer(message);
    if (port) return await receive(port, request.method, finished);
    finished();
    const app = (await appOrigins())[0];
    const link = app ? `<p><a href="${escapeHtml(new URL("/", app).href)}">Open the app</a>, then reload this page.</p>` : "";
    const why = unanswered === null ? "No py_vfs app tab is open to serve this file."
      : unanswered ? "No py_vfs app tab answered in time."
      : "No open py_vfs app tab has this preview's disk open.";
    return page(503, "Preview unavailable", why, link);
  } catch (error) {
    finished();
    return text(500, `Internal Server Error: ${error?.message ?? error}\n`);
  }
}

// Offers the request to every relay frame at once (isRelay: preview pages and anything else of
// this origin are not asked). Resolves with {port} of the first app tab that acks, or with no
// port once every relay passed (its tab does not have the disk open) or ACK_TIMEOUT_MS went by;
// `unanswered`: how many relays neither acked nor passed (null: there was none to ask).
async function offer(message) {
  const all = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const relays = [];
  for (const client of all) if (await isRelay(client)) relays.push(client);
  if (!relays.length) return { port: null, unanswered: null };
  return new Promise((resolve) => {
    let chosen = null;
    let undecided = relays.length;
    const timer = setTimeout(() => resolve({ port: null, unanswered: undecided }), ACK_TIMEOUT_MS);
    for (const client of relays) {
      const channel = new MessageChannel();
      channel.port1.onmessage = ({ data }) => {
        if (data?.type === "ack" && !chosen) {
          chosen = channel.port1;
          clearTimeout(timer);
          return resolve({ port: chosen, unanswered: 0 });
        }
        channel.port1.close();
        if (data?.type === "pass" && !chosen && --undecided === 0) {
          clearTimeout(timer);
          resolve({ port: null, unanswered: 0 });
        }
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
