// F1's bare dedicated worker (bench/web/floors.mjs): it echoes a message, and times appends of
// 1 KiB to a file of the origin private file system through a sync access handle, with and
// without a flush after each: the storage a log-structured store in our worker would use.

const KIB = new Uint8Array(1024).fill(120);
const FILE = "bench-floors.log";

// The median, over BATCHES batches of `count / BATCHES` calls each, of a batch's time divided by
// its calls, after `warmup` untimed calls: batches, because a page that is not cross-origin
// isolated sees performance.now() in steps of 0.1 ms, coarser than one call.
const BATCHES = 10;

function timeEach(call, { count, warmup }) {
  for (let i = 0; i < warmup; i++) call();
  const size = Math.max(1, Math.floor(count / BATCHES));
  const perCall = [];
  for (let batch = 0; batch < BATCHES; batch++) {
    const start = performance.now();
    for (let i = 0; i < size; i++) call();
    perCall.push((performance.now() - start) / size);
  }
  perCall.sort((a, b) => a - b);
  return (perCall[BATCHES / 2 - 1] + perCall[BATCHES / 2]) / 2;
}

async function opfs(sizes) {
  const root = await navigator.storage.getDirectory();
  const file = await root.getFileHandle(FILE, { create: true });
  const handle = await file.createSyncAccessHandle();
  try {
    handle.truncate(0);
    let at = 0;
    const append = () => { at += handle.write(KIB, { at }); };
    const opfsAppend = timeEach(append, sizes);
    const opfsAppendFlush = timeEach(() => { append(); handle.flush(); }, sizes);
    return { opfsAppend, opfsAppendFlush };
  } finally {
    handle.close();
    await root.removeEntry(FILE);
  }
}

self.onmessage = async ({ data }) => {
  try {
    const value = data.kind === "echo" ? data.bytes : await opfs(data);
    self.postMessage({ id: data.id, value });
  } catch (error) {
    self.postMessage({ id: data.id, error: String(error?.message ?? error) });
  }
};
