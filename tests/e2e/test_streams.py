"""Streams on the JS API in real Chromium: createReadStream and writeFile(ReadableStream).

The 200 MiB test is the issue's measurement: it reports the worker's WebAssembly memory growth
(Pyodide's memory only grows, so growth bounds everything Python held at once) and checks it
stays far below the file's size.
"""

from __future__ import annotations

from .test_js_api import js, js_error

# A page-side generator of deterministic bytes and a running checksum, so the test never holds
# a large file in the page either.
HELPERS = """
  const MiB = 1024 * 1024;
  const block = (i, size) => {
    const out = new Uint8Array(size);
    let x = (i * 2654435761) >>> 0;
    for (let k = 0; k < size; k++) { x = (x * 1103515245 + 12345) >>> 0; out[k] = x >>> 24; }
    return out;
  };
  const source = (total, size) => {
    let sent = 0, i = 0;
    return new ReadableStream({
      pull(controller) {
        if (sent >= total) { controller.close(); return; }
        const n = Math.min(size, total - sent);
        controller.enqueue(block(i++, n));
        sent += n;
      },
    });
  };
  const sum = async (stream) => {
    let a = 1, b = 0, length = 0, pieces = 0, largest = 0;
    for await (const piece of stream) {
      for (let k = 0; k < piece.length; k++) { a = (a + piece[k]) % 65521; b = (b + a) % 65521; }
      length += piece.length; pieces++; largest = Math.max(largest, piece.length);
    }
    return {adler: b * 65536 + a, length, pieces, largest};
  };
"""


def stream_js(page, body: str):
    return js(page, HELPERS + body)


def test_write_stream_then_read_it_back_in_ranges(app):
    result = stream_js(app, """
      await vfs.mkdir("/streams", {recursive: true});
      await vfs.writeFile("/streams/a.bin", source(3 * MiB + 5, 100000));
      const whole = await vfs.readFile("/streams/a.bin");
      const all = await sum(vfs.createReadStream("/streams/a.bin"));
      const expected = await sum(source(3 * MiB + 5, 100000));
      const slice = async (start, end) => {
        const got = await new Response(vfs.createReadStream("/streams/a.bin", {start, end}))
          .arrayBuffer();
        const want = whole.slice(start, end === undefined ? undefined : end + 1);
        return got.byteLength === want.length &&
          new Uint8Array(got).every((value, k) => value === want[k]);
      };
      return {
        size: (await vfs.stat("/streams/a.bin")).size, same: all.adler === expected.adler,
        largest: all.largest,
        ranges: [await slice(0, 9), await slice(MiB - 2, MiB + 2), await slice(3 * MiB),
                 await slice(5, 5), await slice(3 * MiB + 4, 10 * MiB)],
      };
    """)
    assert result == {"size": 3 * 1024 * 1024 + 5, "same": True, "largest": 512 * 1024,
                      "ranges": [True] * 5}


def test_strings_and_async_iterables_stream_too(app):
    assert js(app, """
      async function* parts() { yield "héllo "; yield new TextEncoder().encode("wörld"); }
      await vfs.mkdir("/streams", {recursive: true});
      await vfs.writeFile("/streams/t.txt", parts());
      return await vfs.readFile("/streams/t.txt", "utf8");
    """) == "héllo wörld"


def test_a_failing_stream_leaves_the_old_file(app):
    result = js(app, """
      await vfs.mkdir("/streams", {recursive: true});
      await vfs.writeFile("/streams/keep.txt", "old");
      let sent = 0;
      const broken = new ReadableStream({
        pull(controller) {
          if (sent++ < 5) controller.enqueue(new Uint8Array(300000).fill(7));
          else controller.error(new Error("network dropped"));
        },
      });
      let message = null;
      try { await vfs.writeFile("/streams/keep.txt", broken); }
      catch (e) { message = e.message; }
      return {message, text: await vfs.readFile("/streams/keep.txt", "utf8")};
    """)
    assert result == {"message": "network dropped", "text": "old"}


def test_stream_errors_carry_codes(app):
    assert js_error(app, """
      const reader = vfs.createReadStream("/streams/missing").getReader();
      await reader.read()""")["code"] == "ENOENT"
    assert js_error(app, """
      await vfs.mkdir("/streams/dir", {recursive: true});
      await vfs.writeFile("/streams/dir", new ReadableStream({start(c) { c.close(); }}))
    """)["code"] == "EISDIR"


def test_cancelling_a_read_stream_lets_the_file_go(app):
    assert stream_js(app, """
      await vfs.mkdir("/streams", {recursive: true});
      await vfs.writeFile("/streams/c.bin", source(2 * MiB, MiB));
      const reader = vfs.createReadStream("/streams/c.bin").getReader();
      const first = await reader.read();
      await vfs.rm("/streams/c.bin");
      const second = await reader.read();  // the version it opened on is still readable
      await reader.cancel();
      return [first.value.length, second.value.length, await vfs.exists("/streams/c.bin")];
    """) == [512 * 1024, 512 * 1024, False]


def test_200_mib_stream_holds_a_few_chunks_in_the_worker(app):
    result = stream_js(app, """
      await vfs.mkdir("/streams", {recursive: true});
      const before = await vfs.memoryUsage();
      const total = 200 * MiB;
      const t0 = performance.now();
      await vfs.writeFile("/streams/huge.bin", source(total, 256 * 1024));
      const t1 = performance.now();
      const read = await sum(vfs.createReadStream("/streams/huge.bin"));
      const t2 = performance.now();
      const after = await vfs.memoryUsage();
      const expected = await sum(source(total, 256 * 1024));
      await vfs.rm("/streams/huge.bin");
      return {same: read.adler === expected.adler && read.length === total,
              growth: after.wasmBytes - before.wasmBytes, wasm: after.wasmBytes,
              writeMs: t1 - t0, readMs: t2 - t1};
    """)
    print(f"\n200 MiB stream: wasm memory {result['wasm'] / 2**20:.0f} MiB, "
          f"grew {result['growth'] / 2**20:.1f} MiB; write {result['writeMs']:.0f} ms, "
          f"read {result['readMs']:.0f} ms")
    assert result["same"]
    # Held whole, the file alone would grow the heap by 200 MiB (more with copies).
    assert result["growth"] < 32 * 2**20, result
