// A streamed call's output and input on its channel (web/worker/worker.mjs serves the page's
// channel, each guest tab's and each view's port with these).

import { WIRE } from "../shared/protocol.mjs";

// A streamed shell call (options.stream: the page gave onOutput) gets a third argument: the
// function Python calls with each piece of output as it is written (py_vfs/web/shell.py), which
// posts an "output" message {id, stream, data} on the call's channel. The page answers each
// piece with "outputAck" {id, bytes} once it has taken it; past OUTPUT_WINDOW bytes not
// acknowledged, the function returns a promise Python awaits, so a command that writes faster
// than the page reads waits instead of filling the page's memory.
const OUTPUT_WINDOW = 1 << 20;
// The calls that stream so: a shell line, and Python code run as `python -c` (vfs.runPython).
export const STREAMED = new Set(["shell", "runPython"]);

// With options.input (the page gave `input`), a fourth: read(raw), which asks the page for what
// the user types ("inputWanted" {id}; {id, raw: true} when the command wants the keys as typed,
// as `less` does) and resolves to its "input" {id, data} (null: the end of the input).
export function withStreams(data, args, reply, calls) {
  const options = args[1];
  if (!STREAMED.has(data.op) || !(options?.stream || options?.input)) return args;
  const flow = { unacked: 0, resume: null, answer: null };
  (calls.flows ??= new Map()).set(data.id, flow);
  const emit = (stream, bytes) => {
    reply({ type: WIRE.output, id: data.id, stream, data: bytes });
    flow.unacked += bytes.byteLength;
    if (flow.unacked <= OUTPUT_WINDOW) return undefined;
    return new Promise((resolve) => { flow.resume = resolve; });
  };
  const read = (raw = false) => new Promise((resolve) => {
    flow.answer = resolve;
    reply({ type: WIRE.inputWanted, id: data.id, ...(raw === true ? { raw: true } : {}) });
  });
  return [args[0], options, options.stream ? emit : null, options.input ? read : null];
}

export function typed(calls, { id, data }) {
  const flow = calls.flows?.get(id);
  flow?.answer?.(data ?? undefined); // undefined reaches Python as None (null: JsNull)
  if (flow) flow.answer = null;
}

export function acknowledged(calls, { id, bytes }) {
  const flow = calls.flows?.get(id);
  if (!flow) return;
  flow.unacked -= bytes;
  if (flow.unacked <= OUTPUT_WINDOW && flow.resume) {
    flow.resume();
    flow.resume = null;
  }
}
