// The app's end of the preview channel (docs/preview.md). Previews are served from another
// origin than the app's; a hidden frame of that origin's relay.html registers its service worker
// and hands this page each request the service worker offers, with the port to answer on.

import { handPreview } from "./preview_handoff.mjs";
import { findRoot } from "./preview_roots.mjs";
// The version of the preview messages, shared with service_worker/sw.js and relay.mjs.
import { BODY, PREVIEW_PROTOCOL, RELAY } from "../shared/protocol.mjs";
const RELAY_TIMEOUT_MS = 20000; // boot goes on without previews after this (a warning says so)

// Served from another origin, a previewed page can reach none of the app's storage, locks or
// windows. Only messages from this page's own relay frame, of the preview origin, are taken;
// `diskOf(name)` is this page's runtime of a disk (web/pyvfs.mjs), if it has it open. Resolves to
// {origin} once the relay is ready (a preview's URL is minted only then, so a preview opened
// right after boot is served), or null when no preview origin is configured.
export async function connectRelay(option, diskOf) {
  if (typeof document === "undefined") return null;
  retireAppOriginWorker();
  const origin = option ? new URL(option).origin : await configuredPreviewOrigin();
  if (!origin) return null;
  if (origin === location.origin) {
    console.error(`py_vfs: the preview origin must not be the app's own (${origin}); previews are off`);
    return null;
  }
  const frame = document.createElement("iframe");
  frame.hidden = true;
  frame.title = "py_vfs preview relay";
  // The preview service worker takes the frame for a relay only when the navigation that made
  // it comes from an app origin's page: the referrer says so, whatever this page's policy.
  frame.referrerPolicy = "origin";
  let reloaded = false;
  const ready = new Promise((resolve) => {
    const late = setTimeout(() => {
      console.warn(`py_vfs: the preview relay of ${origin} did not answer within ${RELAY_TIMEOUT_MS} ms; previews may fail`);
      resolve();
    }, RELAY_TIMEOUT_MS);
    window.addEventListener("message", (event) => {
      if (event.origin !== origin || event.source !== frame.contentWindow) return;
      const message = event.data;
      if (message?.protocol !== PREVIEW_PROTOCOL) return;
      if (message.type === RELAY.preview && event.ports.length === 1) {
        answerPreview(message, event.ports[0], diskOf);
      } else if (message.type === RELAY.reload && !reloaded) {
        // A first visit: the relay registered the service worker, which did not see this
        // frame's navigation. Loaded again, through the worker, it is a relay (once).
        reloaded = true;
        frame.src = relayUrl;
      } else if (message.type === RELAY.ready || message.type === RELAY.failed || message.type === RELAY.reload) {
        if (message.type === RELAY.failed) console.warn(`py_vfs: previews are off: ${message.message}`);
        if (message.type === RELAY.reload) console.warn("py_vfs: previews are off: the preview service worker does not take this page's frame for a relay (is this origin in the preview site's appOrigins?)");
        clearTimeout(late);
        resolve();
      }
    });
  });
  const relayUrl = new URL("/preview/relay.html", origin).href;
  frame.src = relayUrl;
  (document.body ?? document.documentElement).append(frame);
  await ready;
  return { origin };
}

// Builds before the preview origin registered their service worker on the app's own origin,
// scope ./preview/, where it would go on serving previews with the app's rights. It is removed
// here; any other registration of the origin (an embedding app's own) is left alone.
function retireAppOriginWorker() {
  const scope = new URL("./preview/", import.meta.url).href;
  navigator.serviceWorker?.getRegistration(scope).then((registration) => {
    if (registration?.scope === scope) return registration.unregister();
  }).catch((error) => console.warn("py_vfs: could not remove the old preview service worker", error));
}

async function configuredPreviewOrigin() {
  try {
    const response = await fetch(new URL("./pyvfs-config.json", import.meta.url), { cache: "no-cache" });
    const { previewOrigin } = await response.json();
    return previewOrigin ? new URL(previewOrigin).origin : null;
  } catch {
    return null;
  }
}

// Acks an offer this page can serve, a token of a disk it has open (or a token no tab minted:
// that is a 404 any tab may give), and passes on any other, so the service worker need not wait
// for it; on "go" hands the port to that disk's VFS worker, which answers the service worker
// directly (docs/preview.md). Other tabs offered the same request may ack too; the service
// worker picks one and closes the others' ports.
async function answerPreview(message, port, diskOf) {
  const root = await findRoot(message.token).catch(() => null);
  const disk = root && diskOf(root.disk);
  // A disk still electing its runtime has no worker for a moment: its tab acks once it has.
  if (disk && !disk.worker) await disk.ready.catch(() => null);
  if (root && !disk?.worker) {
    port.postMessage({ type: BODY.pass });
    return port.close();
  }
  port.onmessage = ({ data }) => {
    if (data?.type !== BODY.go) return;
    port.onmessage = null;
    if (!disk) return notFound(port, message.request.path);
    const { root: top, kind, node, name } = root;
    const request = { ...message.request, token: message.token, root: top, kind, node, name };
    handPreview(disk, request, port, () => notFound(port, message.request.path));
  };
  port.postMessage({ type: BODY.ack });
}

function notFound(port, path) {
  const body = new TextEncoder().encode(`ENOENT: no such file or directory, preview '${path}'\n`);
  const headers = { "content-type": "text/plain; charset=utf-8", "content-length": String(body.length) };
  port.postMessage({ type: BODY.start, status: 404, headers, body, more: false }, [body.buffer]);
  port.close();
}
