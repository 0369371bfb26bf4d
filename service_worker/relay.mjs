// The preview relay, on the PREVIEW origin, embedded as a hidden frame by each app tab
// (web/pyvfs.mjs) at /preview/relay.html. It registers the preview service worker (scope
// /preview/) and hands each of its offers, with the transferred MessagePort, to the app tab that
// embeds it; from there the app tab's VFS worker talks to the service worker directly on that
// port (docs/preview.md). The service worker offers requests only to a relay whose navigation it
// saw come from an app tab: on a first visit (no service worker yet) it asks the tab to load it
// again, through the now active worker.
// It serves only app origins listed in this site's pyvfs-config.json ({"appOrigins": [...]}),
// and build/serve.py also sends it with `Content-Security-Policy: frame-ancestors <app origin>`.

// The version of the preview messages, shared with sw.js and web/page/preview_relay.mjs: build/build.py
// writes protocol.mjs (generated from py_vfs/web/protocol.py) next to this file.
import { PREVIEW_PROTOCOL as PROTOCOL, RELAY } from "./protocol.mjs";

const HELLO_TIMEOUT_MS = 10000; // the service worker's answer to "am I a relay?"

async function appOrigins() {
  const response = await fetch("/pyvfs-config.json", { cache: "no-cache" });
  const config = await response.json();
  return Array.isArray(config.appOrigins) ? config.appOrigins : [];
}

async function activated(registration) {
  const worker = registration.installing ?? registration.waiting ?? registration.active;
  if (!worker) throw new Error("the preview service worker did not install");
  if (worker.state === "activated") return;
  await new Promise((resolve, reject) => {
    const check = () => {
      if (worker.state === "activated") resolve();
      else if (worker.state === "redundant") reject(new Error("the preview service worker was refused"));
    };
    worker.addEventListener("statechange", check);
    check();
  });
}

async function relay() {
  const app = location.ancestorOrigins?.[0];
  if (window.parent === window || !app || !(await appOrigins()).includes(app)) {
    document.getElementById("state").textContent = `Not embedded by a py_vfs app origin of this preview site (${app ?? "none"}).`;
    return;
  }
  const tell = (message, ports = []) => window.parent.postMessage(message, app, ports);
  try {
    navigator.serviceWorker.addEventListener("message", (event) => {
      if (event.data?.type === RELAY.preview) tell(event.data, [...event.ports]);
    });
    navigator.serviceWorker.startMessages();
    const registration = await navigator.serviceWorker.register(new URL("/preview/sw.js", location.origin), {
      scope: new URL("/preview/", location.origin).href,
      updateViaCache: "none",
    });
    // A new build's sw.js differs (it carries the build id): install it now rather than at the
    // next navigation into the scope; it takes over the open previews (skipWaiting + claim).
    takeOver(registration);
    registration.update().catch(() => {});
    await activated(registration);
    if (await trusted(registration)) tell({ type: RELAY.ready, protocol: PROTOCOL });
    else tell({ type: RELAY.reload, protocol: PROTOCOL }); // the tab loads this frame again
  } catch (error) {
    tell({ type: RELAY.failed, protocol: PROTOCOL, message: String(error?.message ?? error) });
  }
}

// Each new build's worker, once installed, is asked to take over (again: it called
// skipWaiting() while it installed). Without this ask, about one update in eight (Chromium 156, a
// tab reloading while a preview stays open) stayed waiting behind the old worker for minutes,
// with none of the old worker's events in flight. A new build is found by this relay's update()
// or by the browser's own check after a navigation into the scope.
function takeOver(registration) {
  const ask = (worker) => {
    if (!worker) return;
    const installed = () => {
      if (worker.state === "installed") worker.postMessage({ type: RELAY.skipWaiting, protocol: PROTOCOL });
    };
    worker.addEventListener("statechange", installed);
    installed();
  };
  registration.addEventListener("updatefound", () => ask(registration.installing));
  ask(registration.installing ?? registration.waiting);
}

// Whether the service worker takes this frame for a relay (it saw the navigation that made it).
function trusted(registration) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the preview service worker did not answer within ${HELLO_TIMEOUT_MS} ms`)), HELLO_TIMEOUT_MS);
    navigator.serviceWorker.addEventListener("message", function answer(event) {
      if (event.data?.type !== RELAY.trusted) return;
      navigator.serviceWorker.removeEventListener("message", answer);
      clearTimeout(timer);
      resolve(event.data.trusted === true);
    });
    registration.active.postMessage({ type: RELAY.hello, protocol: PROTOCOL });
  });
}

relay();
