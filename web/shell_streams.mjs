// The streams of a shell call (vfs.shell with onOutput or input, web/api.mjs). Output: bytes per stream, decoded as UTF-8 across pieces (a
// character split between two pieces comes out whole), handed to `onOutput(stream, text)`.
// Input: each time the command wants more, `input()` is asked and its answer posted (as
// UTF-8 bytes; null, also once the signal aborts, ends the input).
// Resolves to null once `signal` aborts (never without one).
function aborted(signal) {
  return new Promise((resolve) => signal?.addEventListener("abort", () => resolve(null), { once: true }));
}

export class ShellStreams {
  constructor(onOutput, input, signal) {
    this.onOutput = onOutput;
    this.input = input;
    this.signal = signal;
    this.decoders = {};
  }
  async wanted(post) {
    let data = null;
    try {
      if (this.input && !this.signal?.aborted) data = await Promise.race([this.input(), aborted(this.signal)]);
    } catch {
      data = null;
    }
    post(typeof data === "string" ? new TextEncoder().encode(data) : data ?? null);
  }
  output(stream, data) {
    if (!this.onOutput) return;
    const decoder = (this.decoders[stream] ??= new TextDecoder());
    const text = decoder.decode(data, { stream: true });
    if (text) this.onOutput(stream, text);
  }
  end() {
    if (!this.onOutput) return;
    for (const [stream, decoder] of Object.entries(this.decoders)) {
      const text = decoder.decode();
      if (text) this.onOutput(stream, text);
    }
  }
}
