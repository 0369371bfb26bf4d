// The VFS owner's half of the preview protocol (docs/preview.md), run in the VFS worker.
// Answers one request on the MessagePort the service worker handed over: a "start" message with
// the status, headers and first piece of the body, then, for a large body, one "chunk" per
// "pull" until "end". Python decides everything (py_vfs/hosts/preview.py); this only moves bytes, and
// transfers each piece's buffer instead of copying it.

import { BODY } from "../shared/protocol.mjs";

// A stream the service worker stops pulling (it died, or the reader went away without a
// cancel) is closed after this long, which releases the file's pinned chunks in Python.
const IDLE_MS = 60000;

export async function servePreview(port, request, call) {
  let answer;
  try {
    const envelope = await call("preview", [request]);
    answer = envelope.value ?? failure(envelope.error?.message);
  } catch (error) {
    answer = failure(error?.message ?? error);
  }
  const { status, headers, body, stream } = answer;
  const more = stream != null;
  port.postMessage({ type: BODY.start, status, headers, body, more }, [body.buffer]);
  if (more) pump(port, stream, call);
  else port.close();
}

function failure(message) {
  const body = new TextEncoder().encode(`Internal Server Error: ${message}\n`);
  return { status: 500, headers: { "content-type": "text/plain; charset=utf-8" }, body, stream: null };
}

function pump(port, stream, call) {
  let timer;
  const close = () => {
    clearTimeout(timer);
    port.close();
    call("closeStream", [stream]).catch(() => {});
  };
  const idle = () => {
    clearTimeout(timer);
    timer = setTimeout(close, IDLE_MS);
  };
  idle();
  port.onmessage = async ({ data }) => {
    if (data?.type === BODY.cancel) return close();
    if (data?.type !== BODY.pull) return;
    idle();
    try {
      const { value, error } = await call("readChunk", [stream]);
      if (error) throw new Error(error.message);
      if (value == null) {
        clearTimeout(timer);
        port.postMessage({ type: BODY.end });
        port.close();
      } else {
        port.postMessage({ type: BODY.chunk, data: value }, [value.buffer]);
      }
    } catch (error) {
      port.postMessage({ type: BODY.error, message: String(error?.message ?? error) });
      close();
    }
  };
}
