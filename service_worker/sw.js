// The preview service worker: answers GET and HEAD /preview/<path> from the VFS.
// It keeps no state (it is stopped when idle); every request asks the open app pages in turn
// (docs/architecture.md, "Preview"): the first that acks owns the VFS and sends the file.

const VFS_NAME = "default";
const ACK_TIMEOUT_MS = 1500;
const ANSWER_TIMEOUT_MS = 60000;

self.addEventListener("install", (event) => event.waitUntil(self.skipWaiting()));
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const scope = new URL(self.registration.scope);
  const url = new URL(event.request.url);
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  event.respondWith(answer(event.request, url.pathname.slice(scope.pathname.length)));
});

function page(status, title, text, extra = "") {
  const body = `<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><p>${text}</p>${extra}`;
  return new Response(body, { status, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

// Percent-decodes each segment; a decoded "/" or NUL can only be a trick, so it is refused.
function vfsPath(relative) {
  const segments = relative.split("/").map((segment) => decodeURIComponent(segment));
  if (segments.some((segment) => segment.includes("/") || segment.includes("\0"))) throw new URIError("bad segment");
  return "/" + segments.join("/");
}

async function answer(request, relative) {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response("Method Not Allowed\n", { status: 405, headers: { Allow: "GET, HEAD" } });
  }
  let path;
  try {
    path = vfsPath(relative);
  } catch {
    return new Response(`Bad Request: malformed percent-encoding in ${relative}\n`, { status: 400 });
  }
  const clients = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const scope = self.registration.scope;
  for (const client of clients) {
    if (client.url.startsWith(scope)) continue;
    const reply = await ask(client, { type: "pyvfs:preview", vfs: VFS_NAME, path, method: request.method });
    if (reply) return toResponse(reply, request.method);
  }
  const app = new URL("../", scope).href;
  return page(503, "Preview unavailable", "No py_vfs app tab is open to serve this file.",
    `<p><a href="${app}">Open the app</a>, then reload this page.</p>`);
}

function ask(client, message) {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    let timer = setTimeout(() => resolve(null), ACK_TIMEOUT_MS);
    channel.port1.onmessage = ({ data }) => {
      clearTimeout(timer);
      if (data.type === "ack") {
        timer = setTimeout(() => resolve({ status: 504, headers: {}, body: new TextEncoder().encode("Gateway Timeout: the app did not answer\n") }), ANSWER_TIMEOUT_MS);
      } else if (data.type === "response") {
        channel.port1.close();
        resolve(data);
      }
    };
    client.postMessage(message, [channel.port2]);
  });
}

function toResponse({ status, headers, body }, method) {
  const head = new Headers(headers);
  head.set("Content-Length", String(body.byteLength));
  head.set("Cache-Control", "no-cache");
  const noBody = method === "HEAD" || status === 304 || status === 301;
  return new Response(noBody ? null : body, { status, headers: head });
}
