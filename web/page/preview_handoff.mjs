// Hands a preview request the relay took (web/page/preview_relay.mjs) to the worker that runs
// its disk, with the service worker's port to answer on (docs/preview.md).
//
// A page that runs its disk's worker hands the port over as it is. A guest's worker is its
// host's, which may go at any moment: its worker may even answer a moment after its page
// closed, then never send the answer. So a guest keeps the service worker's port and passes the
// answer through a channel of its own; when its host goes before the answer started, the
// request is asked again of the next host's worker, and when it goes in the middle of a body,
// the service worker is told at once that the body broke.

import { BODY, WIRE } from "../shared/protocol.mjs";

// `disk`: the page's runtime of that disk (web/pyvfs.mjs Instance): `role`, `worker`,
// `liveWorker()` (the worker, once this page is connected to one) and `onHostGone(listener)`.
// `gone()` answers the port when the disk was closed meanwhile.
export function handPreview(disk, request, port, gone) {
  if (disk.closed || !disk.worker) gone();
  else if (disk.role === "guest" || disk.reconnecting) relay(disk, request, port, gone);
  else disk.worker.postMessage({ type: WIRE.preview, request }, [port]);
}

function relay(disk, request, port, gone) {
  let inner = null;
  let started = false;
  let done = false;
  const finish = () => {
    done = true;
    forget();
    inner?.close();
    port.close();
  };
  const ask = async () => {
    const worker = await disk.liveWorker();
    if (done || started) return;
    if (!worker || disk.closed) {
      forget();
      return gone();
    }
    inner?.close();
    const channel = new MessageChannel();
    inner = channel.port1;
    inner.onmessage = ({ data }) => {
      if (done) return;
      if (data?.type === BODY.start) started = true;
      const piece = data?.type === BODY.start ? data.body : data?.type === BODY.chunk ? data.data : null;
      port.postMessage(data, piece ? [piece.buffer] : []);
      const last = (data?.type === BODY.start && !data.more) || data?.type === BODY.end || data?.type === BODY.error;
      if (last) finish();
    };
    worker.postMessage({ type: WIRE.preview, request }, [channel.port2]);
  };
  // The service worker's "pull" and "cancel", for the worker that answers.
  port.onmessage = ({ data }) => {
    inner?.postMessage(data);
    if (data?.type === BODY.cancel) finish();
  };
  const forget = disk.onHostGone(() => {
    if (done) return;
    if (!started) return void ask();
    port.postMessage({ type: BODY.error, message: "the tab that served this file closed" });
    finish();
  });
  ask();
}
